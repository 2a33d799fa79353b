/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ASLR_LAYOUT_H
#define __PERF_ASLR_LAYOUT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Where perf inject --aslr puts the mappings of a recording, for the
 * architecture that recorded it: regions where no machine of that
 * architecture has anything, so that a remapped address is never an address
 * of the recording (see aslr-layout.c for each, and perf-inject.txt).
 */
struct aslr_layout {
	/* The architecture, as uname -m says */
	const char	*arch;
	/* Remapped user mappings, from user; stand-ins of user addresses. */
	u64		user;
	u64		user_alias;
	u64		user_end;
	/* Remapped kernel mappings, from kernel; stand-ins of kernel addresses. */
	u64		kernel;
	u64		kernel_alias;
	u64		kernel_end;
	/* An address at or above it, in no mapping, is a kernel one. */
	u64		kernel_min;
	/*
	 * The kernel image is no bigger: a kernel map of perf before 4.x,
	 * or of arm64's, reaches the top of the address space.
	 */
	u64		kernel_image_max;
	/* 32: the addresses of the recording, and so of the output, fit in 32 bits. */
	unsigned int	bits;
};

/* An address range of the recording, for aslr_layout__place(). */
struct aslr_range {
	u64	start;
	u64	end;
};

/*
 * The layout for @arch (uname -m of the recording machine): 0, or -ENOENT
 * for an architecture the table doesn't have. A 32-bit one still has to be
 * placed (aslr_layout__place()).
 */
int aslr_layout__find(const char *arch, struct aslr_layout *layout);
/*
 * Place the regions of a 32-bit @layout where the recording has nothing: in
 * 32 bits, every address is one some machine can have, the ranges of the
 * recording (@nr of them, sorted by start, not overlapping) say where this
 * one had nothing. @user and @kernel are the room the remapped user and
 * kernel mappings need. -ENOSPC if there is none that big.
 */
int aslr_layout__place(struct aslr_layout *layout, const struct aslr_range *ranges,
		       size_t nr, u64 user, u64 kernel);
/* Does [@start, @end) meet a region of @layout? */
bool aslr_layout__overlaps(const struct aslr_layout *layout, u64 start, u64 end);

#endif /* __PERF_ASLR_LAYOUT_H */
