// SPDX-License-Identifier: GPL-2.0
/*
 * The canonical layouts of perf inject --aslr, one for each architecture
 * (see aslr-layout.h).  A remapped address must never be an address of the
 * recording: the output check and the leak checkers look for the addresses
 * of the input in the output, and a value that could be either would hide a
 * leak or refuse a good file.  So each region is one where no machine of
 * the architecture maps anything, whatever its page table levels, virtual
 * address size, KASLR offset or the tags of its pointers: the addresses no
 * user or kernel virtual address can take.  User regions are below kernel
 * ones, as perf tells them apart (machine__kernel_start()).
 *
 * In 32 bits there is no such region: every address is one some machine of
 * the architecture can have, user or kernel by its split.  The regions are
 * then placed where the recording has nothing (aslr_layout__place()).
 */
#include <errno.h>
#include <string.h>
#include <linux/align.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/sizes.h>

#include "aslr-layout.h"

/*
 * A region of 2^52 bytes (4 PiB): its mappings, then from the half of it
 * the stand-ins of the addresses that are in none (aslr_layout__find()).
 */
#define ASLR_LAYOUT64_REGION	BIT_ULL(52)

#define LAYOUT64(_arch, _user, _kernel, _kernel_min) {			\
	.arch = _arch, .user = _user, .kernel = _kernel,		\
	.kernel_min = _kernel_min, .bits = 64,				\
	.kernel_image_max = SZ_1G,					\
}

static const struct aslr_layout aslr_layouts[] = {
	/*
	 * Documentation/arch/x86/x86_64/mm.rst: user space below 2^47 with 4
	 * page table levels, below 2^56 with 5 (for the processes that ask);
	 * the kernel from 0xffff800000000000, or 0xff00000000000000 with 5.
	 * Between them the addresses are not canonical: any access faults, on
	 * every x86-64 machine.  The same holds of riscv64 with Sv39, Sv48 and
	 * Sv57 (Documentation/arch/riscv/vm-layout.rst).
	 */
	LAYOUT64("x86_64", 0x0200000000000000ULL, 0xfe00000000000000ULL, BIT_ULL(63)),
	LAYOUT64("riscv64", 0x0200000000000000ULL, 0xfe00000000000000ULL, BIT_ULL(63)),
	/*
	 * Documentation/arch/arm64/memory.rst: user space below 2^VA_BITS
	 * (39, 42, 47, 48, 52), the kernel from 2^64 - 2^VA_BITS.  The top
	 * byte of a pointer may be a tag (TBI: HWASan, MTE; KASAN's tags for
	 * the kernel): of any pointer, bits 52-55 are all clear (user) or
	 * all set (kernel).  The regions have 0x8 there.
	 */
	LAYOUT64("aarch64", 0x0080000000000000ULL, 0xff80000000000000ULL, BIT_ULL(63)),
	LAYOUT64("arm64", 0x0080000000000000ULL, 0xff80000000000000ULL, BIT_ULL(63)),
	/*
	 * arch/powerpc/include/asm/book3s/64/{hash,radix}.h, nohash/64: user
	 * space below 2^52 (4 PB), the kernel at 0xc000000000000000 and up
	 * (linear map, vmalloc, I/O, vmemmap: 0xc, 0xd, 0xf on hash), the
	 * vmalloc area of Book3E at 0x8000000000000000.  Nothing in 0xa.
	 */
	LAYOUT64("ppc64", 0x0100000000000000ULL, 0xa000000000000000ULL, BIT_ULL(63)),
	LAYOUT64("ppc64le", 0x0100000000000000ULL, 0xa000000000000000ULL, BIT_ULL(63)),
	/*
	 * arch/s390/include/asm/processor.h, mm/pgalloc.c: user space below
	 * 2^53 (4 region table levels; the 5th only for a process that maps
	 * above), the kernel in its own address space, below 2^53 as well.
	 * perf tells kernel from user by the record, the addresses don't:
	 * stand-ins all go to the user one.
	 */
	LAYOUT64("s390x", 0x0100000000000000ULL, 0x0400000000000000ULL, ~0ULL),
	/*
	 * arch/loongarch/include/asm/addrspace.h, pgtable.h: user space below
	 * 2^48 (VALEN), the kernel in the direct map windows at
	 * 0x8000000000000000, 0x9000000000000000 and 0xa000000000000000 and
	 * from 0xffff800000000000 (vmalloc, modules).  Nothing in 0xe.
	 */
	LAYOUT64("loongarch64", 0x0100000000000000ULL, 0xe000000000000000ULL, BIT_ULL(63)),
	/*
	 * 32 bits: user space below the split (PAGE_OFFSET: 0x40000000 to
	 * 0xc0000000, by the kernel's configuration), the kernel above it,
	 * arm's modules just below it: every address is some machine's.
	 */
	{ .arch = "i386", .bits = 32, .kernel_image_max = SZ_64M, },
	{ .arch = "arm", .bits = 32, .kernel_image_max = SZ_64M, },
};

/* The name of the table for @arch, as uname -m says it. */
static const char *aslr_layout__name(const char *arch)
{
	if (arch[0] == 'i' && strlen(arch) == 4 && !strcmp(arch + 2, "86"))
		return "i386";
	/* armv5tel, armv6l, armv7l, armv8l (32-bit on arm64): not arm64 */
	if (!strncmp(arch, "arm", 3) && strcmp(arch, "arm64"))
		return "arm";
	return arch;
}

int aslr_layout__find(const char *arch, struct aslr_layout *layout)
{
	const char *name = aslr_layout__name(arch);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aslr_layouts); i++) {
		if (strcmp(aslr_layouts[i].arch, name))
			continue;
		*layout = aslr_layouts[i];
		if (layout->bits == 64) {
			layout->user_alias = layout->user + ASLR_LAYOUT64_REGION / 2;
			layout->user_end = layout->user + ASLR_LAYOUT64_REGION;
			layout->kernel_alias = layout->kernel + ASLR_LAYOUT64_REGION / 2;
			layout->kernel_end = layout->kernel + ASLR_LAYOUT64_REGION;
		}
		return 0;
	}
	return -ENOENT;
}

/*
 * 32 bits: regions start on 16 MiB boundaries, 16 MiB away from the ranges
 * of the recording (a heap after an executable, a stack below the last
 * mapping: memory samples point to), and hold 16 MiB of stand-ins (a
 * million of them) after the mappings.  The first and last 16 MiB stay
 * clear (the zero page, error pointers, arm's vectors).
 */
#define ASLR_LAYOUT32_STEP	0x1000000ULL
#define ASLR_LAYOUT32_END	(BIT_ULL(32) - ASLR_LAYOUT32_STEP)

/* The first @need bytes free of @ranges from @from up, 0 if none. */
static u64 aslr_layout__gap(const struct aslr_range *ranges, size_t nr, u64 from, u64 need)
{
	u64 start = ALIGN(from, ASLR_LAYOUT32_STEP);
	size_t i;

	for (i = 0; i < nr; i++) {
		u64 used = ranges[i].start > ASLR_LAYOUT32_STEP ?
			   ranges[i].start - ASLR_LAYOUT32_STEP : 0;

		if (ranges[i].end + ASLR_LAYOUT32_STEP <= start)
			continue;
		if (start + need <= ALIGN_DOWN(used, ASLR_LAYOUT32_STEP))
			return start;
		start = ALIGN(ranges[i].end + ASLR_LAYOUT32_STEP, ASLR_LAYOUT32_STEP);
	}
	return start + need <= ASLR_LAYOUT32_END ? start : 0;
}

int aslr_layout__place(struct aslr_layout *layout, const struct aslr_range *ranges,
		       size_t nr, u64 user, u64 kernel)
{
	u64 user_size = ALIGN(user, ASLR_LAYOUT32_STEP) + ASLR_LAYOUT32_STEP;
	u64 kernel_size = ALIGN(kernel, ASLR_LAYOUT32_STEP) + ASLR_LAYOUT32_STEP;
	u64 at;

	if (layout->bits != 32)
		return 0;
	at = aslr_layout__gap(ranges, nr, ASLR_LAYOUT32_STEP, user_size);
	if (!at)
		return -ENOSPC;
	layout->user = at;
	layout->user_alias = at + user_size - ASLR_LAYOUT32_STEP;
	layout->user_end = at + user_size;
	/* The kernel above user space, as perf tells them apart. */
	at = aslr_layout__gap(ranges, nr, layout->user_end, kernel_size);
	if (!at)
		return -ENOSPC;
	layout->kernel = at;
	layout->kernel_alias = at + kernel_size - ASLR_LAYOUT32_STEP;
	layout->kernel_end = at + kernel_size;
	return 0;
}

bool aslr_layout__overlaps(const struct aslr_layout *layout, u64 start, u64 end)
{
	return (start < layout->user_end && end > layout->user) ||
	       (start < layout->kernel_end && end > layout->kernel);
}
