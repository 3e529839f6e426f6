// SPDX-License-Identifier: GPL-2.0
/*
 * S1 sg-tur-leak: CVE-2018-1000204 as LTP's ioctl_sg01 judges it.
 *
 * First fill the swiotlb pool with a marker by reading a marker-filled disk
 * through the same virtio-scsi device, then send SCSI TEST UNIT READY with a
 * 512 KiB zeroed DMA_FROM_DEVICE buffer.  The device transfers nothing, so
 * every non-zero byte that comes back is stale bounce-buffer data: a leak.
 *
 * With -w, the same check as a leak hunt under load (issue 7): W worker
 * processes each send N TEST UNIT READYs while another process keeps
 * flooding swiotlb with marker data; every non-zero byte of every reply
 * counts.
 *
 * usage: sg_tur_leak [-d /dev/sgN] [-f flood-MiB] [-m marker] [-w W -n N]
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
	long long flood = 64, nonzero = 0, marked = 0;
	int marker = 0xa5, workers = 0, turs = 1000, len = XFER, fd, opt;
	unsigned char *buf = malloc(XFER);

	while ((opt = getopt(argc, argv, "d:f:m:w:n:s:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'f': flood = atoll(optarg); break;
		case 'm': marker = strtol(optarg, NULL, 0); break;
		case 'w': workers = atoi(optarg); break;
		case 'n': turs = atoi(optarg); break;
		case 's': len = atoi(optarg) << 10; break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-f flood-MiB] [-m marker] [-w workers -n turs] [-s KiB]\n",
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

	fd = open_disk(dev);
	if (fd < 0 || flood_pool(fd, buf, flood << 20, marker) ||
	    tur_leak(fd, buf, len, marker, &nonzero, &marked))
		return 1;
	printf("bouncelab: result driver=- scenario=s1-sg-tur-leak observed=%s flooded_mib=%lld nonzero=%lld marker=%lld\n",
	       nonzero ? "LEAK" : "ok", flood, nonzero, marked);
	return 0;
}
