// SPDX-License-Identifier: GPL-2.0
/*
 * R2 net-frames: a real NIC driver under swiotlb=force, checked frame by
 * frame.
 *
 * Two interfaces on one QEMU hub (nothing leaves QEMU).  Raw Ethernet
 * frames (AF_PACKET, an experimental EtherType) go from A to B and from B
 * back to A, one at a time, at sizes on both sides of the drivers'
 * receive copybreak thresholds (e1000, e1000e: 256; virtio-net: 128) up
 * to 1514.  Every frame carries a sequence number, its length and a
 * checksum, and its body is 32-bit words that depend on the sequence
 * number, so a receiver tells apart:
 *   lost       a frame that never arrived
 *   corrupt    a frame with bad bytes (or a bad length or checksum)
 *   stale      a corrupt frame whose bad words belong to an earlier frame
 *              (the receive buffer showed an old packet's bytes)
 *   duplicate  a frame that arrived twice
 *
 * -x corrupt|stale: a test-only knob that, before it is checked, flips one
 * byte of the first frame the receiver gets, or puts the previous frame's
 * first words into the second one, to show that the checker fails.
 *
 * The result line also says how long the exchange took (ns, CLOCK_MONOTONIC:
 * virtual time under QEMU's -icount) and how many bytes it sent, which
 * make bench turns into a round-trip throughput per driver.
 *
 * -f MS: the receive flood (scenario r3-net-flood) instead: for MS ms of
 * (virtual) time each way, A sends frames of the same sizes to B as fast
 * as the path takes them (a send that finds the queue full waits for it),
 * while B's socket is drained and every frame checked as above.  Under
 * load NICs drop frames (their receive rings overrun), so lost frames
 * are counted but are not the outcome by themselves: the host judges them
 * against a boot without bouncing.  The outcome is CORRUPT, STALE or DUP
 * as above, or STALL when no frame at all arrived in the last quarter of
 * a direction's frames (the receive path stopped), else ok.
 *
 * usage: net_frames [-r rounds | -f ms] [-x corrupt|stale] IFACE-A IFACE-B
 * Prints one result line and exits 0 when the measurement itself worked,
 * whatever it observed; 1 on a setup error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ETHERTYPE	0x88b5		/* IEEE 802 local experimental */
#define MAGIC		0x424c4e46	/* "BLNF" */
#define HELLO		0x424c4e48	/* "BLNH": link warm-up, not judged */
#define HDR		14
#define META		16		/* magic, seq, length, checksum */
#define WINDOW		4096		/* earlier frames a stale word is looked up in */
#define MAXSEQ		(1 << 20)

struct side {
	const char *name;
	int fd, ifindex;
	unsigned char mac[6];
};

static unsigned char seen[MAXSEQ], damaged[MAXSEQ];
static unsigned long lost, corrupt, stale, dups, good, sent, late, stalls;
static int damage;

static uint32_t word(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 0x9e3779b1u ^ (i + 1) * 0x85ebca77u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	return x ^ x >> 13;
}

static uint32_t checksum(const unsigned char *p, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void build(unsigned char *f, size_t len, const struct side *from,
		  const struct side *to, uint32_t seq)
{
	uint32_t meta[4] = { htonl(MAGIC), htonl(seq), htonl(len), 0 };

	memcpy(f, to->mac, 6);
	memcpy(f + 6, from->mac, 6);
	f[12] = ETHERTYPE >> 8;
	f[13] = ETHERTYPE & 0xff;
	for (size_t i = HDR + META, w = 0; i < len; i += 4, w++) {
		uint32_t v = word(seq, w);

		memcpy(f + i, &v, len - i < 4 ? len - i : 4);
	}
	meta[3] = htonl(checksum(f + HDR + META, len - HDR - META));
	memcpy(f + HDR, meta, META);
}

/* Judge a received frame; returns its sequence number or -1. */
static long judge(unsigned char *f, size_t got)
{
	uint32_t meta[4], seq, len;
	unsigned long bad = 0, old = 0;

	if (got < HDR + META)
		goto bad;
	memcpy(meta, f + HDR, META);
	if (ntohl(meta[0]) == HELLO)
		return -2;
	if (damage == 1) {
		f[got - 1] ^= 0x5a;
		damage = 0;
	} else if (damage == 2 && ntohl(meta[1]) > 0 && got >= HDR + META + 16) {
		for (uint32_t w = 0; w < 4; w++) {
			uint32_t v = word(ntohl(meta[1]) - 1, w);

			memcpy(f + HDR + META + 4 * w, &v, 4);
		}
		damage = 0;
	}
	seq = ntohl(meta[1]);
	len = ntohl(meta[2]);
	if (ntohl(meta[0]) != MAGIC || seq >= MAXSEQ || len != got)
		goto bad;
	for (size_t i = HDR + META, w = 0; i + 4 <= len; i += 4, w++) {
		uint32_t v;

		memcpy(&v, f + i, 4);
		if (v == word(seq, w))
			continue;
		bad++;
		for (uint32_t s = seq > WINDOW ? seq - WINDOW : 0; s < seq; s++)
			if (v == word(s, w)) {
				old++;
				break;
			}
	}
	if (!bad && ntohl(meta[3]) != checksum(f + HDR + META, len - HDR - META))
		bad++;
	if (bad) {
		fprintf(stderr, "net_frames: frame %u (%u bytes): %lu bad words, %lu of an earlier frame\n",
			seq, len, bad, old);
		damaged[seq] = 1;
		if (old)
			stale++;
		else
			corrupt++;
		return seq;	/* arrived, though damaged */
	}
	if (seen[seq]++)
		dups++;
	else
		good++;
	return seq;
bad:
	fprintf(stderr, "net_frames: a frame of %zu bytes without a valid header\n", got);
	corrupt++;
	return -1;
}

static int open_side(struct side *s)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE) };
	struct ifreq ifr = { 0 };
	int i;

	s->fd = socket(AF_PACKET, SOCK_RAW, htons(ETHERTYPE));
	if (s->fd < 0)
		return perror("net_frames: socket"), -1;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", s->name);
	if (ioctl(s->fd, SIOCGIFINDEX, &ifr) || (s->ifindex = ifr.ifr_ifindex, 0) ||
	    ioctl(s->fd, SIOCGIFHWADDR, &ifr))
		return fprintf(stderr, "net_frames: no interface %s\n", s->name), -1;
	memcpy(s->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(s->fd, SIOCGIFFLAGS, &ifr))
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s->fd, SIOCSIFFLAGS, &ifr))
		return fprintf(stderr, "net_frames: %s up: %s\n", s->name, strerror(errno)), -1;
	sll.sll_ifindex = s->ifindex;
	if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return perror("net_frames: bind"), -1;
	/* Wait (up to 20 s) for the link. */
	for (i = 0; i < 200; i++) {
		if (!ioctl(s->fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_RUNNING))
			return 0;
		usleep(100000);
	}
	return fprintf(stderr, "net_frames: %s: no link\n", s->name), -1;
}

/*
 * Receive on TO until frame SEQ (-2: a warm-up frame) arrived or the
 * timeout (ms) ran out; returns whether it did.
 */
static int receive(struct side *to, long seq, int ms)
{
	unsigned char f[2048];
	struct pollfd p = { .fd = to->fd, .events = POLLIN };

	while (poll(&p, 1, ms) > 0) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(to->fd, f, sizeof(f), 0, (struct sockaddr *)&from, &fl);
		long s;

		if (n < 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		s = judge(f, n);
		if (s == seq)
			return 1;
		if (s >= 0 && s < seq)
			late++;
	}
	return 0;
}

/*
 * The first frames after a link comes up can vanish (QEMU's e1000e drops
 * them: seen as frame 0 or 1 lost under every policy alike).  So before
 * judging anything, send warm-up frames until one got through.
 */
static int warm_up(struct side *from, struct side *to)
{
	unsigned char f[60] = { 0 };
	uint32_t hello = htonl(HELLO);

	memcpy(f, to->mac, 6);
	memcpy(f + 6, from->mac, 6);
	f[12] = ETHERTYPE >> 8;
	f[13] = ETHERTYPE & 0xff;
	memcpy(f + HDR, &hello, 4);
	for (int i = 0; i < 50; i++) {
		if (send(from->fd, f, sizeof(f), 0) != sizeof(f))
			break;
		if (receive(to, -2, 200))
			return 0;
	}
	return fprintf(stderr, "net_frames: no frame got from %s to %s\n", from->name,
		       to->name), -1;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Drain TO's socket without waiting; returns how many frames it judged. */
static unsigned long drain(struct side *to, int ms)
{
	unsigned char f[2048];
	struct pollfd p = { .fd = to->fd, .events = POLLIN };
	unsigned long n = 0;

	while (poll(&p, 1, ms) > 0) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t got = recvfrom(to->fd, f, sizeof(f), MSG_DONTWAIT,
				       (struct sockaddr *)&from, &fl);

		if (got < 0)
			break;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (judge(f, got) >= 0)
			n++;
	}
	return n;
}

/*
 * The flood, one direction: frames FIRST.. from FROM to TO for MS ms.
 * Returns the next sequence number; counts a stall when none of the last
 * quarter of the frames arrived.
 */
static uint32_t flood(struct side *from, struct side *to, uint32_t first, int ms,
		      const size_t *sizes, size_t nsizes, unsigned long long *bytes)
{
	long long end = now_ns() + ms * 1000000LL;
	uint32_t seq = first, tail;
	unsigned long arrived = 0;

	while (now_ns() < end && seq < MAXSEQ) {
		unsigned char f[1514];
		size_t len = sizes[seq % nsizes];
		struct pollfd p = { .fd = from->fd, .events = POLLOUT };

		build(f, len, from, to, seq);
		if (send(from->fd, f, len, MSG_DONTWAIT) != (ssize_t)len) {
			/* Queue full (ENOBUFS, EAGAIN): drain, wait, again. */
			drain(to, 0);
			poll(&p, 1, 10);
			continue;
		}
		sent++;
		*bytes += len;
		seq++;
		drain(to, 0);
	}
	drain(to, 300);
	tail = seq - (seq - first) / 4;
	for (uint32_t s = tail; s < seq; s++)
		arrived += seen[s] || damaged[s];
	if (seq > first && !arrived) {
		stalls++;
		fprintf(stderr, "net_frames: flood %s to %s: none of frames %u..%u arrived\n",
			from->name, to->name, tail, seq - 1);
	}
	return seq;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 60, 64, 100, 127, 128, 129, 200, 255, 256, 257,
					300, 512, 1000, 1499, 1514 };
	struct side a = { 0 }, b = { 0 };
	int rounds = 10, flood_ms = 0, c;
	uint32_t seq = 0;
	unsigned long long bytes = 0;
	struct timespec t0, t1;

	while ((c = getopt(argc, argv, "r:f:x:")) != -1) {
		switch (c) {
		case 'r': rounds = atoi(optarg); break;
		case 'f': flood_ms = atoi(optarg); break;
		case 'x':
			damage = !strcmp(optarg, "corrupt") ? 1 : !strcmp(optarg, "stale") ? 2 : 0;
			if (!damage)
				goto usage;
			break;
		default: goto usage;
		}
	}
	if (optind != argc - 2 || rounds < 1 || flood_ms < 0 ||
	    rounds * 2 * sizeof(sizes) / sizeof(sizes[0]) >= MAXSEQ)
		goto usage;
	a.name = argv[optind];
	b.name = argv[optind + 1];
	if (open_side(&a) || open_side(&b) || warm_up(&a, &b) || warm_up(&b, &a))
		return 1;
	/* Warm-up frames still on their way are ignored. */
	receive(&a, -3, 200);
	receive(&b, -3, 200);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (flood_ms > 0) {
		int big = 8 << 20;

		/* Root: receive buffers big enough that the socket drops nothing. */
		setsockopt(a.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
		setsockopt(b.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
		seq = flood(&a, &b, 0, flood_ms, sizes, sizeof(sizes) / sizeof(sizes[0]), &bytes);
		seq = flood(&b, &a, seq, flood_ms, sizes, sizeof(sizes) / sizeof(sizes[0]), &bytes);
		rounds = 0;
	}
	for (int r = 0; r < rounds; r++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			for (int dir = 0; dir < 2; dir++) {
				struct side *from = dir ? &b : &a, *to = dir ? &a : &b;
				unsigned char f[1514];

				build(f, sizes[i], from, to, seq);
				if (send(from->fd, f, sizes[i], 0) != (ssize_t)sizes[i]) {
					fprintf(stderr, "net_frames: send on %s: %s\n", from->name,
						strerror(errno));
					return 1;
				}
				sent++;
				bytes += sizes[i];
				receive(to, seq, 2000);
				seq++;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Stragglers and duplicates. */
	receive(&a, -3, 300);
	receive(&b, -3, 300);
	for (uint32_t s = 0; s < seq; s++) {
		if (seen[s] || damaged[s])
			continue;
		if (lost++ < 8 && !flood_ms)
			fprintf(stderr, "net_frames: frame %u (%zu bytes, %s to %s) lost\n", s,
				sizes[s / 2 % (sizeof(sizes) / sizeof(sizes[0]))],
				s % 2 ? b.name : a.name, s % 2 ? a.name : b.name);
	}

	printf("bouncelab: result driver=- scenario=%s observed=%s frames=%lu"
	       " good=%lu lost=%lu corrupt=%lu stale=%lu dup=%lu late=%lu bytes=%llu ns=%lld\n",
	       flood_ms ? "r3-net-flood" : "r2-net-frames",
	       stale ? "STALE" : corrupt ? "CORRUPT" : flood_ms && stalls ? "STALL" :
	       lost && !flood_ms ? "LOST" : dups ? "DUP" : "ok",
	       sent, good, lost, corrupt, stale, dups, late, bytes,
	       (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
usage:
	fprintf(stderr, "usage: net_frames [-r rounds | -f ms] [-x corrupt|stale] IFACE-A IFACE-B\n");
	return 1;
}
