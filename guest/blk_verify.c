// SPDX-License-Identifier: GPL-2.0
/*
 * R1 blk-verify: a real block driver under swiotlb=force, checked byte by
 * byte.
 *
 * First fill the swiotlb pool with a marker by O_DIRECT reads of a
 * marker-filled disk (-f, as S1 does), then, on the block device under
 * test, for every size from 512 B to 1 MiB and every buffer offset the
 * queue allows: O_DIRECT write of a pattern, O_DIRECT read into a buffer
 * poisoned beforehand, compare.  A marker byte in the read buffer is a
 * leak (stale bounce-buffer data); any other byte that differs from the
 * pattern, or a poison byte outside the transfer that changed, is
 * corruption.  Then a read that runs past the end of the device (the
 * kernel shortens it): the bytes returned must be the pattern, the rest of
 * the buffer must keep its poison.
 *
 * O_DIRECT on a block device needs the file offset and the length to be
 * multiples of the logical block size, and the buffer address a multiple
 * of the queue's dma_alignment + 1 (sysfs; 6.1 relaxed the address rule
 * from the block size to that).  The offsets tried are multiples of that
 * alignment, so every transfer is one the kernel accepts: NVMe allows 4
 * bytes (buffers that start mid-page and mid-64-byte line), AHCI and
 * virtio-blk 512.
 *
 * -x corrupt|leak: a test-only knob that damages one block on purpose (it
 * writes the bitwise inverse of the pattern, or the marker, over the first
 * block after the first write), to show that the checker fails.
 *
 * -t N: R5 td-align instead (scenario r5-td-align): the pattern written
 * once (1 MiB writes, before the flood), then after the flood N reads of
 * 4 KiB into a buffer that starts one aligned block before a page end
 * (its first segment is shorter than a USB SuperSpeed packet), and every
 * seventh a 512-byte read too, so that the transfers' TRBs step through
 * every position of an xHCI ring segment: where such a first TRB would
 * end a segment, xhci_align_td() bounces it through the segment's own
 * buffer (docs/drivers.md, the census's findings).  Each read checked as
 * R1's.  (Until 7 Dec 2026 every read had its own 4 KiB write before it:
 * twice the USB commands, half of the census's time.)
 *
 * usage: blk_verify [-f MARKER-DEV] [-m flood-MiB] [-k marker] [-x corrupt|leak] [-t N] DEV
 * Prints one result line and exits 0 when the measurement itself worked,
 * whatever it observed; 1 on a setup or I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define POISON		0x3c
#define MAX_XFER	(1024 * 1024)
#define SLACK		8192	/* room for the offsets and guard bytes */
/*
 * Bytes checked past a transfer's end (they must keep their poison): the
 * buffer is checked from its start to GUARD bytes past the transfer, not
 * to its 1 MiB end, which under TCG cost about 0.1 s a case (7 Dec 2026).
 */
#define GUARD		4096

static unsigned char marker = 0xa5;
static unsigned long long leak, corrupt, cases, bytes;

/* The pattern byte at device position POS in round SEED; never the marker. */
static unsigned char pattern(unsigned long long pos, unsigned int seed)
{
	unsigned long long x = (pos + 1) * 0x9e3779b97f4a7c15ULL ^ seed * 0xc2b2ae3dULL;
	unsigned char b = (x ^ x >> 29 ^ x >> 47) & 0xff;

	return b == marker ? b ^ 0xff : b;
}

static void fill(unsigned char *p, size_t len, unsigned long long pos, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern(pos + i, seed);
}

/*
 * Check BUF[0, ALLOC): [off, off + got) must hold the pattern of device
 * position POS, everything else its poison.  Returns the bad bytes.
 */
static unsigned long long check(const unsigned char *buf, size_t alloc, size_t off,
				size_t got, unsigned long long pos, unsigned int seed,
				const char *what)
{
	unsigned long long bad = 0, first = ~0ULL;

	for (size_t i = 0; i < alloc; i++) {
		int in = i >= off && i < off + got;
		unsigned char want = in ? pattern(pos + i - off, seed) : POISON;

		if (buf[i] == want)
			continue;
		if (buf[i] == marker)
			leak++;
		else
			corrupt++;
		if (first == ~0ULL)
			first = i;
		bad++;
	}
	if (bad)
		fprintf(stderr, "blk_verify: %s: %llu bad bytes, first at buffer byte %llu"
			" (0x%02x, want 0x%02x)\n", what, bad, first, buf[first],
			first >= off && first < off + got ?
			pattern(pos + first - off, seed) : POISON);
	return bad;
}

static int full_io(int write, int fd, void *buf, size_t len, off_t pos)
{
	ssize_t n = write ? pwrite(fd, buf, len, pos) : pread(fd, buf, len, pos);

	if (n != (ssize_t)len) {
		fprintf(stderr, "blk_verify: %s of %zu bytes at %lld: %s\n",
			write ? "write" : "read", len, (long long)pos,
			n < 0 ? strerror(errno) : "short");
		return -1;
	}
	return 0;
}

/* Read the marker disk with O_DIRECT until MIB MiB went through swiotlb. */
static int flood(const char *dev, long mib)
{
	size_t chunk = 256 * 1024;
	unsigned char *buf = aligned_alloc(4096, chunk);
	int fd = open(dev, O_RDONLY | O_DIRECT);
	long long size;

	if (fd < 0 || !buf || ioctl(fd, BLKGETSIZE64, &size) || size < (long long)chunk) {
		fprintf(stderr, "blk_verify: cannot read marker disk %s\n", dev);
		return -1;
	}
	for (long long done = 0; done < mib * 1024 * 1024; done += chunk)
		if (full_io(0, fd, buf, chunk, done % (size - size % chunk)))
			return -1;
	if (buf[0] != marker) {
		fprintf(stderr, "blk_verify: %s does not hold the marker 0x%02x\n", dev, marker);
		return -1;
	}
	close(fd);
	free(buf);
	return 0;
}

/* The queue's dma_alignment (sysfs), 511 when unknown. */
static long dma_alignment(const char *dev)
{
	const char *name = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	char path[256];
	long a = 511;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/dma_alignment", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &a) != 1)
			a = 511;
		fclose(f);
	}
	return a;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 512, 1536, 4096, 4608, 65536, 131584, 262144, MAX_XFER };
	const char *marker_dev = NULL, *damage = "";
	long mib = 40, align;
	size_t offsets[6], noff = 0, alloc = MAX_XFER + SLACK;
	long long size;
	unsigned char *buf;
	unsigned int seed = getpid();
	int fd, c, sweep = 0;

	while ((c = getopt(argc, argv, "f:m:k:x:t:")) != -1) {
		switch (c) {
		case 't': sweep = atoi(optarg); break;
		case 'f': marker_dev = optarg; break;
		case 'm': mib = atol(optarg); break;
		case 'k': marker = strtoul(optarg, NULL, 0); break;
		case 'x': damage = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || (*damage && strcmp(damage, "corrupt") && strcmp(damage, "leak")))
		goto usage;

	fd = open(argv[optind], O_RDWR | O_DIRECT);
	buf = aligned_alloc(4096, alloc);
	if (fd < 0 || !buf || ioctl(fd, BLKGETSIZE64, &size) || size < 4 * MAX_XFER) {
		fprintf(stderr, "blk_verify: cannot use %s (needs >= 4 MiB)\n", argv[optind]);
		return 1;
	}
	/* R5: the pattern of the whole sweep written before the flood. */
	for (unsigned long long pos = 0; sweep && pos < sweep * 8192ULL; pos += MAX_XFER) {
		size_t len = MAX_XFER;

		if (pos + len > (unsigned long long)size)
			break;
		fill(buf, len, pos, seed);
		if (full_io(1, fd, buf, len, pos))
			return 1;
	}
	if (marker_dev && flood(marker_dev, mib))
		return 1;

	/* Buffer offsets: multiples of the queue's alignment, mid-page too. */
	align = dma_alignment(argv[optind]) + 1;
	offsets[noff++] = 0;
	offsets[noff++] = align;
	if (3 * align < 4096)
		offsets[noff++] = 3 * align;
	if (align < 64)
		offsets[noff++] = 64 + align;
	offsets[noff++] = 4096 - align;

	/*
	 * R5 checks the three pages around its reads, not the whole 1 MiB
	 * buffer: poisoning and checking all of it for each of the sweep's
	 * reads was nearly all of R5's time under TCG (7 Dec 2026).
	 */
	for (int i = 0; i < sweep; i++) {
		size_t off = 4096 - align, win = 3 * 4096;
		unsigned long long pos = (i * 8192ULL) % (size - 8192);

		memset(buf, POISON, win);
		if (full_io(0, fd, buf + off, 4096, pos))
			return 1;
		check(buf, win, off, 4096, pos, seed, "4096 bytes a block before a page end");
		cases++;
		bytes += 4096;
		if (i % 7 != 6)
			continue;
		memset(buf, POISON, win);
		if (full_io(0, fd, buf, 512, pos))
			return 1;
		check(buf, win, 0, 512, pos, seed, "512 bytes");
		cases++;
		bytes += 512;
	}
	if (sweep) {
		printf("bouncelab: result driver=- scenario=r5-td-align observed=%s cases=%llu"
		       " bytes=%llu leak=%llu corrupt=%llu align=%ld\n",
		       leak ? "LEAK" : corrupt ? "CORRUPT" : "ok", cases, bytes, leak, corrupt,
		       align);
		return 0;
	}

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t o = 0; o < noff; o++) {
			size_t len = sizes[s], off = offsets[o];
			size_t win = off + len + GUARD < alloc ? off + len + GUARD : alloc;
			/* Spread the cases over the device, block aligned. */
			unsigned long long pos = (cases * 1234567ULL) % (size - MAX_XFER) / 512 * 512;
			char what[96];

			fill(buf + off, len, pos, seed);
			if (full_io(1, fd, buf + off, len, pos))
				return 1;
			if (cases == 0 && *damage) {
				memset(buf, marker, 512);
				if (!strcmp(damage, "corrupt"))
					for (int i = 0; i < 512; i++) {
						buf[i] = ~pattern(pos + i, seed);
						buf[i] ^= buf[i] == marker;
					}
				if (full_io(1, fd, buf, 512, pos))
					return 1;
			}
			memset(buf, POISON, win);
			if (full_io(0, fd, buf + off, len, pos))
				return 1;
			snprintf(what, sizeof(what), "%zu bytes at buffer offset %zu", len, off);
			check(buf, win, off, len, pos, seed, what);
			cases++;
			bytes += len;
		}
	}

	/* A read past the end of the device: the kernel shortens it. */
	{
		size_t len = 65536, off = offsets[noff > 1 ? 1 : 0], win = off + len + GUARD;
		unsigned long long pos = size - 4096;
		ssize_t n;

		fill(buf + off, 4096, pos, seed);
		if (full_io(1, fd, buf + off, 4096, pos))
			return 1;
		memset(buf, POISON, win);
		n = pread(fd, buf + off, len, pos);
		if (n != 4096) {
			fprintf(stderr, "blk_verify: read past the end returned %zd, want 4096\n", n);
			return 1;
		}
		check(buf, win, off, n, pos, seed, "read past the end");
		cases++;
		bytes += n;
	}

	printf("bouncelab: result driver=- scenario=r1-blk-verify observed=%s cases=%llu"
	       " bytes=%llu leak=%llu corrupt=%llu align=%ld\n",
	       leak ? "LEAK" : corrupt ? "CORRUPT" : "ok", cases, bytes, leak, corrupt, align);
	return 0;
usage:
	fprintf(stderr, "usage: blk_verify [-f MARKER-DEV] [-m flood-MiB] [-k marker]"
		" [-x corrupt|leak] [-t N] DEV\n");
	return 1;
}
