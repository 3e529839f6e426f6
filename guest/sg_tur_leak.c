// SPDX-License-Identifier: GPL-2.0
/*
 * S1 sg-tur-leak: CVE-2018-1000204 as LTP's ioctl_sg01 judges it.
 *
 * First fill the swiotlb pool with a marker by reading a marker-filled disk
 * through the same virtio-scsi device, then send SCSI TEST UNIT READY with a
 * 512 KiB zeroed DMA_FROM_DEVICE buffer.  The device transfers nothing, so
 * every non-zero byte that comes back is stale bounce-buffer data: a leak.
 *
 * usage: sg_tur_leak [/dev/sgN] [flood-MiB] [marker-byte]
 * Prints one result line (the format the drivers use too) and exits 0 when
 * the measurement itself worked, whatever it observed; 1 on a setup error.
 */
#include <fcntl.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define XFER		(512 * 1024)
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

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/sg0";
	long long flood = (argc > 2 ? atoll(argv[2]) : 64) << 20;
	int marker = argc > 3 ? strtol(argv[3], NULL, 0) : 0xa5;
	unsigned char tur[6] = { 0 };	/* TEST UNIT READY */
	long long size, done, nonzero = 0, marked = 0;
	unsigned char *buf;
	int fd, i;

	fd = open(dev, O_RDWR);
	buf = malloc(XFER);
	if (fd < 0 || !buf) {
		perror(dev);
		return 1;
	}
	/* Clear the unit attention a fresh disk reports to its first command. */
	for (i = 0; i < 3 && sg_io(fd, tur, sizeof(tur), NULL, 0); i++)
		;
	size = disk_bytes(fd);
	if (size < XFER) {
		fprintf(stderr, "sg_tur_leak: disk too small (%lld bytes)\n", size);
		return 1;
	}
	/* Walk the disk round and round until FLOOD bytes went through swiotlb. */
	for (done = 0; done < flood; done += XFER) {
		if (read10(fd, (done % (size - size % XFER)) / SECTOR, buf, XFER))
			return 1;
		if (buf[0] != marker || buf[XFER - 1] != marker) {
			fprintf(stderr, "sg_tur_leak: disk does not hold marker %#x\n", marker);
			return 1;
		}
	}

	memset(buf, 0, XFER);
	if (sg_io(fd, tur, sizeof(tur), buf, XFER))
		return 1;
	for (i = 0; i < XFER; i++) {
		nonzero += buf[i] != 0;
		marked += buf[i] == marker;
	}
	printf("bouncelab: result driver=- scenario=s1-sg-tur-leak observed=%s flooded_mib=%lld nonzero=%lld marker=%lld\n",
	       nonzero ? "LEAK" : "ok", flood >> 20, nonzero, marked);
	return 0;
}
