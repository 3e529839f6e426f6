/*
 * Sequential direct reads of a block device, timed (make bench).
 * Reads the whole device (or -m MiB of it) with O_DIRECT in -b KiB blocks
 * and prints one line:  bytes=N ns=T
 * T is CLOCK_MONOTONIC, i.e. virtual time when QEMU runs with -icount.
 *
 * usage: bench_read [-b KiB] [-m MiB] DEVICE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t bs = 64 * 1024;
	long long limit = -1, total = 0, t0, t1;
	void *buf;
	ssize_t n;
	int fd, opt;

	while ((opt = getopt(argc, argv, "b:m:")) != -1) {
		switch (opt) {
		case 'b':
			bs = (size_t)atoi(optarg) * 1024;
			break;
		case 'm':
			limit = atoll(optarg) << 20;
			break;
		default:
			fprintf(stderr, "usage: bench_read [-b KiB] [-m MiB] DEVICE\n");
			return 2;
		}
	}
	if (optind >= argc || !bs) {
		fprintf(stderr, "usage: bench_read [-b KiB] [-m MiB] DEVICE\n");
		return 2;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, bs)) {
		perror(argv[optind]);
		return 1;
	}
	t0 = now_ns();
	while (limit < 0 || total < limit) {
		n = read(fd, buf, bs);
		if (n < 0) {
			perror("read");
			return 1;
		}
		if (n == 0)
			break;
		total += n;
	}
	t1 = now_ns();
	printf("bytes=%lld ns=%lld\n", total, t1 - t0);
	return 0;
}
