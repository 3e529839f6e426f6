// SPDX-License-Identifier: GPL-2.0
/*
 * S1 sg-tur-leak: CVE-2018-1000204 as LTP's ioctl_sg01 judges it.
 *
 * First fill the swiotlb pool with a marker by reading a marker-filled disk
 * through the same virtio-scsi device, then send SCSI TEST UNIT READY with a
 * 512 KiB zeroed DMA_FROM_DEVICE buffer.  The device transfers nothing, so
 * every non-zero byte that comes back is stale bounce-buffer data: a leak.
 *
 * With -p DIR, S0 sg-pages-leak instead: no flood; free memory is filled
 * with the marker and given back (as LTP's ioctl_sg01 does, but through a
 * file in DIR, a ramfs: see pollute_memory()), so that the pages sg
 * allocates for the TEST UNIT READY hold the marker unless sg zeroes them
 * (commit a45b599ad808).  Meant for a boot where the disk does not bounce:
 * then every non-zero byte comes from sg's own pages.
 *
 * With -w, the same check as a leak hunt under load: W worker
 * processes each send N TEST UNIT READYs while another process keeps
 * flooding swiotlb with marker data; every non-zero byte of every reply
 * counts.
 *
 * usage: sg_tur_leak [-d /dev/sgN] [-f flood-MiB | -p ramfs-dir] [-m marker] [-w W -n N]
 *                    [-s TUR-buffer-KiB (default 512)]
 * Prints one result line (the format the drivers use too) and exits 0 when
 * the measurement itself worked, whatever it observed; 1 on a setup error.
 */
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#define XFER		(512 * 1024)	/* S1's size, as in ddbd89deb7d3 */
#define SECTOR		512

static int sg_io(int fd, unsigned char *cdb, int cdb_len, void *buf, int len)
{
	unsigned char sense[32];
	struct sg_io_hdr io = {
		.interface_id = 'S',
		.dxfer_direction = len ? SG_DXFER_FROM_DEV : SG_DXFER_NONE,
		.cmd_len = cdb_len,
		.mx_sb_len = sizeof(sense),
		.dxfer_len = len,
		.dxferp = buf,
		.cmdp = cdb,
		.sbp = sense,
		.timeout = 20000,
	};

	if (ioctl(fd, SG_IO, &io) < 0) {
		perror("sg_tur_leak: SG_IO");
		return -1;
	}
	if (io.status || io.host_status || io.driver_status) {
		fprintf(stderr, "sg_tur_leak: SCSI status %#x host %#x driver %#x\n",
			io.status, io.host_status, io.driver_status);
		return -1;
	}
	return 0;
}

static int read10(int fd, unsigned int lba, void *buf, int len)
{
	unsigned int blocks = len / SECTOR;
	unsigned char cdb[10] = { 0x28, 0,
		lba >> 24, lba >> 16, lba >> 8, lba, 0, blocks >> 8, blocks, 0 };

	return sg_io(fd, cdb, sizeof(cdb), buf, len);
}

static long long disk_bytes(int fd)
{
	unsigned char cdb[10] = { 0x25 };	/* READ CAPACITY(10) */
	unsigned char cap[8];

	memset(cap, 0, sizeof(cap));
	if (sg_io(fd, cdb, sizeof(cdb), cap, sizeof(cap)))
		return -1;
	return ((long long)((cap[0] << 24) | (cap[1] << 16) | (cap[2] << 8) | cap[3]) + 1) *
	       ((cap[4] << 24) | (cap[5] << 16) | (cap[6] << 8) | cap[7]);
}

/* Open the disk and clear the unit attention it reports to a first command. */
static int open_disk(const char *dev)
{
	unsigned char tur[6] = { 0 };
	int fd = open(dev, O_RDWR);
	int i;

	if (fd < 0) {
		perror(dev);
		return -1;
	}
	for (i = 0; i < 3 && sg_io(fd, tur, sizeof(tur), NULL, 0); i++)
		;
	return fd;
}

/* Read the disk round and round until FLOOD bytes (< 0: forever) went by. */
static int flood_pool(int fd, unsigned char *buf, long long flood, int marker)
{
	long long size = disk_bytes(fd), done;

	if (size < XFER) {
		fprintf(stderr, "sg_tur_leak: disk too small (%lld bytes)\n", size);
		return -1;
	}
	for (done = 0; flood < 0 || done < flood; done += XFER) {
		if (read10(fd, (done % (size - size % XFER)) / SECTOR, buf, XFER))
			return -1;
		if (buf[0] != marker || buf[XFER - 1] != marker) {
			fprintf(stderr, "sg_tur_leak: disk does not hold marker %#x\n", marker);
			return -1;
		}
	}
	return 0;
}

/*
 * Fill all free memory but MARGIN with the marker, then give it back, so
 * that the pages sg allocates next hold the marker rather than zeroes from
 * boot (the idea of LTP's tst_pollute_memory).  LTP fills anonymous memory;
 * those pages are movable, and the page allocator keeps movable and
 * unmovable pages in separate pageblocks, while sg's GFP_ATOMIC pages are
 * unmovable: in this small guest they came from pageblocks the pollution
 * never reached (no marker byte in 3 of 3 runs, measured).  So the marker
 * goes into a file on ramfs instead, whose page cache is unmovable: it
 * takes the free unmovable pages first, then pageblocks stolen from movable
 * memory, and deleting the file frees them all with the marker inside.
 * Twice: after the first pass after boot, one 32 KiB block of the 16 was
 * still zero in 5 of 7 runs (measured; most likely the unused rest of the
 * last pageblock the pass stole), while a second pass, which finds its
 * pageblocks unmovable already, left the marker in all 16 blocks in 39 of
 * 40 runs (in the other, one page the kernel had used since).  The margin
 * keeps the guest (no swap, and ramfs pages cannot be reclaimed) clear of
 * the OOM killer.  Returns the MiB polluted by the last pass, -1 on error.
 */
#define MARGIN		(16LL << 20)
#define RAMFS_MAGIC	0x858458f6
static long long pollute_memory(const char *dir, int marker)
{
	static unsigned char chunk[1 << 20];
	char path[4096];
	struct statfs fs;
	struct sysinfo si;
	long long done = 0;
	int fd, pass;

	if (statfs(dir, &fs) || fs.f_type != RAMFS_MAGIC) {
		fprintf(stderr, "sg_tur_leak: -p %s: not a ramfs directory\n", dir);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/sg_tur_leak.pollution", dir);
	memset(chunk, marker, sizeof(chunk));
	for (pass = 0; pass < 2 && done >= 0; pass++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0) {
			perror(path);
			return -1;
		}
		for (done = 0; !sysinfo(&si) &&
		     (long long)si.freeram * si.mem_unit > MARGIN + (long long)sizeof(chunk);
		     done += sizeof(chunk)) {
			if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk)) {
				perror("sg_tur_leak: write");
				done = -1;
				break;
			}
		}
		close(fd);
		unlink(path);
	}
	return done < 0 ? -1 : done >> 20;
}

/*
 * sg's data buffers are 32 KiB blocks (scatter_elem_sz, order 3), and the
 * page allocator hands out order-3 blocks from a per-CPU list first: blocks
 * freed before the pollution, such as the previous run's zeroed buffers,
 * which would come back instead of marker pages (1 to 15 of the 16 blocks
 * in 3 of 6 runs, measured).  So take every block that list can hold out of
 * it before polluting and keep it until the TUR is done: each sg file
 * descriptor holds one, its 32 KiB reserved buffer.  The list never holds
 * more than the per-CPU "high" pages of /proc/zoneinfo, summed over the
 * zones.  (The last refill of the list, 2 blocks at a time, may leave one
 * behind: the reserved buffer of the descriptor that sends the TUR, opened
 * after the pollution, takes it.)  Returns how many descriptors it opened
 * into FDS, -1 on error.
 */
#define MAX_HOLD	1024
static int hold_pcp_blocks(const char *dev, int *fds)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256];
	long high = 0, v;
	int n, want;

	if (!f) {
		perror("/proc/zoneinfo");
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " high: %ld", &v) == 1)
			high += v;
	fclose(f);
	want = high / 8 + 1;
	if (!high || want > MAX_HOLD) {
		fprintf(stderr, "sg_tur_leak: per-CPU high of %ld pages: cannot hold that\n", high);
		return -1;
	}
	for (n = 0; n < want; n++) {
		fds[n] = open(dev, O_RDWR);
		if (fds[n] < 0) {
			perror(dev);
			while (n--)
				close(fds[n]);
			return -1;
		}
	}
	return n;
}

/* One TEST UNIT READY into a zeroed buffer; count what came back anyway. */
static int tur_leak(int fd, unsigned char *buf, int len, int marker,
		    long long *nonzero, long long *marked)
{
	unsigned char tur[6] = { 0 };
	int i;

	memset(buf, 0, len);
	if (sg_io(fd, tur, sizeof(tur), buf, len))
		return -1;
	for (i = 0; i < len; i++) {
		*nonzero += buf[i] != 0;
		*marked += buf[i] == marker;
	}
	return 0;
}

/* W workers x N TURs while a flooder runs; sums come back through a pipe. */
static int hunt(const char *dev, unsigned char *buf, int len, int marker, int workers,
		int turs)
{
	long long nonzero = 0, marked = 0, sums[2];
	int pfd[2], w, status, failed = 0;
	pid_t flooder;

	if (pipe(pfd))
		return -1;
	flooder = fork();
	if (flooder == 0) {
		int fd = open_disk(dev);

		_exit(fd < 0 || flood_pool(fd, buf, -1, marker) ? 1 : 0);
	}
	for (w = 0; w < workers; w++) {
		if (fork() == 0) {
			int fd = open_disk(dev), i;

			sums[0] = sums[1] = 0;
			for (i = 0; fd >= 0 && i < turs; i++)
				if (tur_leak(fd, buf, len, marker, &sums[0], &sums[1]))
					_exit(1);
			if (fd < 0 || write(pfd[1], sums, sizeof(sums)) != sizeof(sums))
				_exit(1);
			_exit(0);
		}
	}
	for (w = 0; w < workers; w++) {
		if (wait(&status) == flooder || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	kill(flooder, SIGKILL);
	waitpid(flooder, NULL, 0);
	close(pfd[1]);
	for (w = 0; w < workers && read(pfd[0], sums, sizeof(sums)) == sizeof(sums); w++) {
		nonzero += sums[0];
		marked += sums[1];
	}
	if (failed || w != workers) {
		fprintf(stderr, "sg_tur_leak: a hunt worker or the flooder failed\n");
		return -1;
	}
	printf("bouncelab: result driver=- scenario=leak-hunt observed=%s workers=%d turs=%d kib=%d nonzero=%lld marker=%lld\n",
	       nonzero ? "LEAK" : "ok", workers, workers * turs, len >> 10, nonzero, marked);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/sg0";
	long long flood = 64, nonzero = 0, marked = 0, polluted = -1;
	int marker = 0xa5, workers = 0, turs = 1000, len = XFER, fd, opt;
	const char *pollute = NULL;
	unsigned char *buf = malloc(XFER);

	while ((opt = getopt(argc, argv, "d:f:m:w:n:s:p:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'f': flood = atoll(optarg); break;
		case 'm': marker = strtol(optarg, NULL, 0); break;
		case 'w': workers = atoi(optarg); break;
		case 'n': turs = atoi(optarg); break;
		case 's': len = atoi(optarg) << 10; break;
		case 'p': pollute = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-f flood-MiB | -p ramfs-dir] [-m marker] [-w workers -n turs] [-s KiB]\n",
				argv[0]);
			return 1;
		}
	}
	if (!buf || len <= 0 || len > XFER) {
		fprintf(stderr, "sg_tur_leak: TUR buffer must be 1..512 KiB\n");
		return 1;
	}
	if (workers > 0)
		return hunt(dev, buf, len, marker, workers, turs) ? 1 : 0;
	if (pollute) {
		static int held[MAX_HOLD];
		int nheld = hold_pcp_blocks(dev, held);

		polluted = nheld < 0 ? -1 : pollute_memory(pollute, marker);
		fd = polluted < 0 ? -1 : open_disk(dev);
		if (fd < 0 || tur_leak(fd, buf, len, marker, &nonzero, &marked))
			return 1;
		printf("bouncelab: result driver=- scenario=s0-sg-pages-leak observed=%s polluted_mib=%lld held=%d nonzero=%lld marker=%lld\n",
		       nonzero ? "LEAK" : "ok", polluted, nheld, nonzero, marked);
		return 0;
	}

	fd = open_disk(dev);
	if (fd < 0 || flood_pool(fd, buf, flood << 20, marker) ||
	    tur_leak(fd, buf, len, marker, &nonzero, &marked))
		return 1;
	printf("bouncelab: result driver=- scenario=s1-sg-tur-leak observed=%s flooded_mib=%lld nonzero=%lld marker=%lld\n",
	       nonzero ? "LEAK" : "ok", flood, nonzero, marked);
	return 0;
}
