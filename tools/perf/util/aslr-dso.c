// SPDX-License-Identifier: GPL-2.0
/*
 * The objects perf inject --aslr writes for the receiver of its output.
 *
 * A JIT lists the code it makes in /tmp/perf-PID.map: start, size and name
 * of each function, at their addresses.  That file is the layout --aslr
 * hides, and the receiver has none: each anonymous executable mapping with
 * symbols in it is written as an ELF object of its own, the symbols at
 * their offsets in the mapping, and the remapped MMAP names that object.
 *
 * perf inject --jit writes an object for each piece of jitted code: its
 * code (which may hold addresses of the JIT), its unwinding information
 * (which may as well) and a build-id that is a digest of the code and of
 * its address, which a receiver with the code could find by trying the
 * few addresses ASLR allows.  --aslr writes a copy of each without them.
 *
 * Both are plain ELF files of the class and byte order of this machine,
 * written without libelf.  Their build-id is a digest of their contents,
 * not a cryptographic one: it names them in the build-id cache.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <internal/lib.h> // page_size, writen
#include <linux/align.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "aslr-dso.h"
#include "build-id.h"
#include "debug.h"

#if __SIZEOF_LONG__ == 8
#define ASLR_ELF_CLASS		ELFCLASS64
#define ELF_ST_INFO(b, t)	ELF64_ST_INFO(b, t)
#define Elf_Ehdr		Elf64_Ehdr
#define Elf_Phdr		Elf64_Phdr
#define Elf_Shdr		Elf64_Shdr
#define Elf_Sym			Elf64_Sym
#define Elf_Nhdr		Elf64_Nhdr
#else
#define ASLR_ELF_CLASS		ELFCLASS32
#define ELF_ST_INFO(b, t)	ELF32_ST_INFO(b, t)
#define Elf_Ehdr		Elf32_Ehdr
#define Elf_Phdr		Elf32_Phdr
#define Elf_Shdr		Elf32_Shdr
#define Elf_Sym			Elf32_Sym
#define Elf_Nhdr		Elf32_Nhdr
#endif

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ASLR_ELF_DATA		ELFDATA2MSB
#else
#define ASLR_ELF_DATA		ELFDATA2LSB
#endif

/* A jitted object bigger than this is not one perf inject --jit wrote. */
#define ASLR_DSO_MAX_JITTED	(256U << 20)

/* A file being built in memory. */
struct aslr_dso_buf {
	char	*data;
	size_t	len;
	size_t	cap;
	bool	enomem;
};

/* Append @n bytes (zeroes if @p is NULL), aligned to @align; their offset. */
static size_t aslr_dso_buf__add(struct aslr_dso_buf *b, const void *p, size_t n, size_t align)
{
	size_t off = ALIGN(b->len, align);

	if (off + n > b->cap) {
		size_t cap = max(off + n, 2 * b->cap + 4096);
		char *data = realloc(b->data, cap);

		if (!data) {
			b->enomem = true;
			return 0;
		}
		b->data = data;
		b->cap = cap;
	}
	memset(b->data + b->len, 0, off - b->len);
	if (p)
		memcpy(b->data + off, p, n);
	else
		memset(b->data + off, 0, n);
	b->len = off + n;
	return off;
}

/*
 * A digest of @len bytes for a build-id: three FNV-1a lanes of their own
 * seeds, each mixed once more at the end (SplitMix64's finalizer).
 */
static void aslr_dso__digest(const void *buf, size_t len, u8 *out, size_t size)
{
	u64 h[3] = { 0xcbf29ce484222325ULL, 0x9e3779b97f4a7c15ULL, 0x6a09e667f3bcc909ULL };
	const u8 *p = buf;
	size_t i, j;

	for (i = 0; i < len; i++) {
		for (j = 0; j < ARRAY_SIZE(h); j++)
			h[j] = (h[j] ^ p[i]) * 0x100000001b3ULL;
	}
	for (j = 0; j < ARRAY_SIZE(h); j++) {
		h[j] ^= h[j] >> 30;
		h[j] *= 0xbf58476d1ce4e5b9ULL;
		h[j] ^= h[j] >> 27;
		h[j] *= 0x94d049bb133111ebULL;
		h[j] ^= h[j] >> 31;
	}
	memset(out, 0, size);
	memcpy(out, h, min(size, sizeof(h)));
}

/*
 * Write the object of @len bytes at @buf, of build-id @bid, as
 * @dir/@stem-BUILDID.so (a name no other object has), through a temporary
 * file: its path in *@path.
 */
static int aslr_dso__write_file(const char *dir, const char *stem, const void *buf,
				size_t len, const struct build_id *bid, char **path)
{
	char sbuild_id[SBUILD_ID_SIZE], *tmp;
	int fd, err = 0;

	build_id__sprintf(bid, sbuild_id);
	if (asprintf(path, "%s/%s-%.16s.so", dir, stem, sbuild_id) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	if (asprintf(&tmp, "%s.XXXXXX", *path) < 0) {
		zfree(path);
		return -ENOMEM;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		pr_err("--aslr: can't create %s: %m\n", tmp);
		goto out;
	}
	if (writen(fd, buf, len) != (ssize_t)len || fchmod(fd, 0644))
		err = -errno ?: -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, *path))
		err = -errno;
	if (err) {
		pr_err("--aslr: can't write %s: %s\n", *path, strerror(-err));
		unlink(tmp);
	}
out:
	free(tmp);
	if (err)
		zfree(path);
	return err;
}

/* e_machine of the ELF objects written: the one of perf itself. */
static u16 aslr_dso__machine(void)
{
	static u16 machine = EM_NONE;
	Elf_Ehdr ehdr;
	int fd;

	if (machine != EM_NONE)
		return machine;
	fd = open("/proc/self/exe", O_RDONLY);
	if (fd >= 0) {
		if (readn(fd, &ehdr, sizeof(ehdr)) == sizeof(ehdr) &&
		    !memcmp(ehdr.e_ident, ELFMAG, SELFMAG))
			machine = ehdr.e_machine;
		close(fd);
	}
	return machine;
}

static void aslr_dso__ehdr(Elf_Ehdr *ehdr, u16 type)
{
	memset(ehdr, 0, sizeof(*ehdr));
	memcpy(ehdr->e_ident, ELFMAG, SELFMAG);
	ehdr->e_ident[EI_CLASS] = ASLR_ELF_CLASS;
	ehdr->e_ident[EI_DATA] = ASLR_ELF_DATA;
	ehdr->e_ident[EI_VERSION] = EV_CURRENT;
	ehdr->e_type = type;
	ehdr->e_machine = aslr_dso__machine();
	ehdr->e_version = EV_CURRENT;
	ehdr->e_ehsize = sizeof(Elf_Ehdr);
	ehdr->e_phentsize = sizeof(Elf_Phdr);
	ehdr->e_shentsize = sizeof(Elf_Shdr);
}

/* The sections of an object of aslr_dso__write_symbols(), in order. */
enum {
	ASLR_DSO_NULL,
	ASLR_DSO_TEXT,
	ASLR_DSO_NOTE,
	ASLR_DSO_SYMTAB,
	ASLR_DSO_STRTAB,
	ASLR_DSO_SHSTRTAB,
	ASLR_DSO_NR_SECTIONS,
};

static const char aslr_dso__shstrtab[] =
	"\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";

/* The symbol table of @syms and its strings, after the null symbol. */
static void aslr_dso__symbols(struct aslr_dso_buf *b, Elf_Shdr *shdr,
			      const struct aslr_dso_sym *syms, size_t nr)
{
	size_t i, strtab;
	u32 name = 1;

	/* The null symbol, then the others */
	shdr[ASLR_DSO_SYMTAB].sh_type = SHT_SYMTAB;
	shdr[ASLR_DSO_SYMTAB].sh_link = ASLR_DSO_STRTAB;
	shdr[ASLR_DSO_SYMTAB].sh_info = 1;
	shdr[ASLR_DSO_SYMTAB].sh_entsize = sizeof(Elf_Sym);
	shdr[ASLR_DSO_SYMTAB].sh_addralign = 8;
	shdr[ASLR_DSO_SYMTAB].sh_offset = aslr_dso_buf__add(b, NULL, sizeof(Elf_Sym), 8);
	for (i = 0; i < nr; i++) {
		Elf_Sym sym = {
			.st_name = name,
			.st_info = ELF_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = ASLR_DSO_TEXT,
			.st_value = syms[i].start,
			.st_size = syms[i].end - syms[i].start,
		};

		aslr_dso_buf__add(b, &sym, sizeof(sym), 1);
		name += strlen(syms[i].name) + 1;
	}
	shdr[ASLR_DSO_SYMTAB].sh_size = b->len - shdr[ASLR_DSO_SYMTAB].sh_offset;

	shdr[ASLR_DSO_STRTAB].sh_type = SHT_STRTAB;
	shdr[ASLR_DSO_STRTAB].sh_addralign = 1;
	strtab = aslr_dso_buf__add(b, "", 1, 1);
	for (i = 0; i < nr; i++)
		aslr_dso_buf__add(b, syms[i].name, strlen(syms[i].name) + 1, 1);
	shdr[ASLR_DSO_STRTAB].sh_offset = strtab;
	shdr[ASLR_DSO_STRTAB].sh_size = b->len - strtab;
}

/* The ELF and program headers of the object in @b, its section headers at @shoff. */
static void aslr_dso__headers(struct aslr_dso_buf *b, size_t shoff, u64 size)
{
	Elf_Ehdr *ehdr = (void *)b->data;
	Elf_Phdr *phdr;

	aslr_dso__ehdr(ehdr, ET_DYN);
	ehdr->e_phoff = sizeof(*ehdr);
	ehdr->e_phnum = 1;
	ehdr->e_shoff = shoff;
	ehdr->e_shnum = ASLR_DSO_NR_SECTIONS;
	ehdr->e_shstrndx = ASLR_DSO_SHSTRTAB;

	/* One segment, from file offset and address 0, as big as the mapping */
	phdr = (void *)b->data + ehdr->e_phoff;
	phdr->p_type = PT_LOAD;
	phdr->p_flags = PF_R | PF_X;
	phdr->p_filesz = b->len;
	phdr->p_memsz = max_t(u64, size, b->len);
	phdr->p_align = page_size;
}

int aslr_dso__write_symbols(const char *dir, const char *stem, const struct aslr_dso_sym *syms,
			    size_t nr, u64 size, char **path)
{
	static const u32 names[ASLR_DSO_NR_SECTIONS] = { 0, 1, 7, 26, 34, 42 };
	struct aslr_dso_buf b = { .data = NULL, };
	Elf_Shdr shdr[ASLR_DSO_NR_SECTIONS];
	Elf_Nhdr nhdr = {
		.n_namesz = sizeof("GNU"),
		.n_descsz = BUILD_ID_SIZE,
		.n_type = NT_GNU_BUILD_ID,
	};
	struct build_id bid;
	size_t i, off, desc;
	int err;

	memset(shdr, 0, sizeof(shdr));
	aslr_dso_buf__add(&b, NULL, sizeof(Elf_Ehdr), 8);
	aslr_dso_buf__add(&b, NULL, sizeof(Elf_Phdr), 8);

	/*
	 * Some code, for perf to take the object for one that has some: the
	 * symbols are anywhere in the segment, whose contents are not here.
	 */
	shdr[ASLR_DSO_TEXT].sh_type = SHT_PROGBITS;
	shdr[ASLR_DSO_TEXT].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	shdr[ASLR_DSO_TEXT].sh_size = 16;
	shdr[ASLR_DSO_TEXT].sh_addralign = 16;
	shdr[ASLR_DSO_TEXT].sh_offset = aslr_dso_buf__add(&b, NULL, 16, 16);
	shdr[ASLR_DSO_TEXT].sh_addr = shdr[ASLR_DSO_TEXT].sh_offset;

	shdr[ASLR_DSO_NOTE].sh_type = SHT_NOTE;
	shdr[ASLR_DSO_NOTE].sh_addralign = 4;
	shdr[ASLR_DSO_NOTE].sh_offset = aslr_dso_buf__add(&b, &nhdr, sizeof(nhdr), 4);
	aslr_dso_buf__add(&b, "GNU", sizeof("GNU"), 1);
	desc = aslr_dso_buf__add(&b, NULL, BUILD_ID_SIZE, 4);
	shdr[ASLR_DSO_NOTE].sh_size = b.len - shdr[ASLR_DSO_NOTE].sh_offset;

	aslr_dso__symbols(&b, shdr, syms, nr);

	shdr[ASLR_DSO_SHSTRTAB].sh_type = SHT_STRTAB;
	shdr[ASLR_DSO_SHSTRTAB].sh_addralign = 1;
	shdr[ASLR_DSO_SHSTRTAB].sh_offset = aslr_dso_buf__add(&b, aslr_dso__shstrtab,
							      sizeof(aslr_dso__shstrtab), 1);
	shdr[ASLR_DSO_SHSTRTAB].sh_size = sizeof(aslr_dso__shstrtab);

	for (i = 0; i < ASLR_DSO_NR_SECTIONS; i++)
		shdr[i].sh_name = names[i];
	off = aslr_dso_buf__add(&b, shdr, sizeof(shdr), 8);
	if (b.enomem) {
		free(b.data);
		return -ENOMEM;
	}

	aslr_dso__headers(&b, off, size);

	aslr_dso__digest(b.data, b.len, (u8 *)b.data + desc, BUILD_ID_SIZE);
	build_id__init(&bid, (u8 *)b.data + desc, BUILD_ID_SIZE);
	err = aslr_dso__write_file(dir, stem, b.data, b.len, &bid, path);
	free(b.data);
	return err;
}

/* The name of section @shdr of the object at @buf, NULL if out of it. */
static const char *aslr_dso__section_name(const char *buf, const Elf_Shdr *strtab,
					  const Elf_Shdr *shdr)
{
	if (shdr->sh_name >= strtab->sh_size ||
	    !memchr(buf + strtab->sh_offset + shdr->sh_name, '\0',
		    strtab->sh_size - shdr->sh_name))
		return NULL;
	return buf + strtab->sh_offset + shdr->sh_name;
}

/*
 * The build-id of the notes of @shdr: its offset in @buf, its size (at
 * most BUILD_ID_SIZE, else none).
 */
static bool aslr_dso__find_build_id(const char *buf, const Elf_Shdr *shdr,
				    size_t *desc, size_t *size)
{
	u64 pos = shdr->sh_offset, end = shdr->sh_offset + shdr->sh_size;

	while (pos + sizeof(Elf_Nhdr) <= end) {
		Elf_Nhdr nhdr;
		u64 name, at, next;

		memcpy(&nhdr, buf + pos, sizeof(nhdr));
		name = pos + sizeof(nhdr);
		at = name + ALIGN((u64)nhdr.n_namesz, 4);
		next = at + ALIGN((u64)nhdr.n_descsz, 4);
		if (next > end)
			return false;
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof("GNU") &&
		    !memcmp(buf + name, "GNU", sizeof("GNU"))) {
			*desc = at;
			*size = nhdr.n_descsz;
			return nhdr.n_descsz && nhdr.n_descsz <= BUILD_ID_SIZE;
		}
		pos = next;
	}
	return false;
}

/* Pass each string of the @size bytes at @buf to @rename, in place. */
static void aslr_dso__rename_strings(char *buf, size_t size, aslr_dso_rename_fn rename,
				     void *ctx)
{
	size_t pos = 0, len;

	while (pos < size) {
		len = strnlen(buf + pos, size - pos);
		if (len)
			rename(ctx, buf + pos, len);
		pos += len + 1;
	}
}

int aslr_dso__copy_jitted(const char *src, const char *dir, aslr_dso_rename_fn rename,
			  void *ctx, char **path)
{
	const Elf_Ehdr *ehdr;
	const Elf_Shdr *shdrs, *strtab;
	size_t i, desc = 0, desc_size = 0;
	struct build_id bid;
	bool found = false;
	struct stat st;
	const char *base;
	char *buf = NULL, *stem;
	int fd, err = -EINVAL;

	fd = open(src, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		pr_err("--aslr: can't read %s: %m\n", src);
		goto out;
	}
	if (st.st_size < (off_t)sizeof(*ehdr) || st.st_size > ASLR_DSO_MAX_JITTED)
		goto bad;
	buf = malloc(st.st_size);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	if (readn(fd, buf, st.st_size) != st.st_size) {
		err = -EIO;
		pr_err("--aslr: can't read %s\n", src);
		goto out;
	}

	ehdr = (const void *)buf;
	if (memcmp(ehdr->e_ident, ELFMAG, SELFMAG) || ehdr->e_ident[EI_CLASS] != ASLR_ELF_CLASS ||
	    ehdr->e_ident[EI_DATA] != ASLR_ELF_DATA || ehdr->e_shentsize != sizeof(*shdrs) ||
	    !ehdr->e_shnum || ehdr->e_shstrndx >= ehdr->e_shnum ||
	    ehdr->e_shoff > (u64)st.st_size || ehdr->e_shoff % __alignof__(*shdrs) ||
	    ehdr->e_shnum * sizeof(*shdrs) > st.st_size - ehdr->e_shoff)
		goto bad;
	shdrs = (const void *)buf + ehdr->e_shoff;
	for (i = 0; i < ehdr->e_shnum; i++) {
		if (shdrs[i].sh_type != SHT_NOBITS &&
		    (shdrs[i].sh_offset > (u64)st.st_size ||
		     shdrs[i].sh_size > st.st_size - shdrs[i].sh_offset))
			goto bad;
	}
	strtab = &shdrs[ehdr->e_shstrndx];
	if (strtab->sh_type == SHT_NOBITS)
		goto bad;

	for (i = 0; i < ehdr->e_shnum; i++) {
		const char *name = aslr_dso__section_name(buf, strtab, &shdrs[i]);

		if (!name || shdrs[i].sh_type == SHT_NOBITS)
			continue;
		if (!strcmp(name, ".text") || !strcmp(name, ".eh_frame") ||
		    !strcmp(name, ".eh_frame_hdr"))
			memset(buf + shdrs[i].sh_offset, 0, shdrs[i].sh_size);
		else if (shdrs[i].sh_type == SHT_STRTAB && i != ehdr->e_shstrndx)
			aslr_dso__rename_strings(buf + shdrs[i].sh_offset, shdrs[i].sh_size,
						 rename, ctx);
		else if (shdrs[i].sh_type == SHT_NOTE && !found)
			found = aslr_dso__find_build_id(buf, &shdrs[i], &desc, &desc_size);
	}
	if (!found)
		goto bad;

	memset(buf + desc, 0, desc_size);
	aslr_dso__digest(buf, st.st_size, (u8 *)buf + desc, desc_size);
	/* jitted-PID-N.so: jitted-PID-N-BUILDID.so */
	base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	stem = strndup(base, strcspn(base, "."));
	build_id__init(&bid, (u8 *)buf + desc, desc_size);
	err = stem ? aslr_dso__write_file(dir, stem, buf, st.st_size, &bid, path) : -ENOMEM;
	free(stem);
	goto out;
bad:
	pr_err("--aslr: %s is not an object perf inject --jit writes, it is not copied\n", src);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

int aslr_dso__write_kallsyms(const char *dir, const char *buf, size_t len, u8 *bid,
			     char **path)
{
	struct build_id build_id;

	aslr_dso__digest(buf, len, bid, BUILD_ID_SIZE);
	build_id__init(&build_id, bid, BUILD_ID_SIZE);
	return aslr_dso__write_file(dir, "kallsyms", buf, len, &build_id, path);
}
