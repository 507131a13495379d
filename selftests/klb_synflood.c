// SPDX-License-Identifier: GPL-2.0
/*
 * klb_synflood: spoofed TCP SYNs (or UDP datagrams) at a VIP, from random
 * source addresses of a prefix and random source ports, through a raw
 * socket: what an attacker without a reply path sends to fill a
 * connection table (selftests/flood.sh). IPv4 only.
 *
 *   klb_synflood -d ADDR -p PORT -s PREFIX/LEN [-r PPS] [-t SECS] [-n COUNT] [-u|-A|-R] [-S SEED]
 *
 * -A sends stray ACKs (with 16 bytes of data, as a mid-flow segment) and
 * -R stray RSTs instead of SYNs: what a balancer that adopts mid-flow
 * packets in dr and tun must stay bounded against (selftests/adopt.sh).
 *
 * -r 0 (the default) sends as fast as the socket takes them. Stops after
 * SECS seconds (default 5), COUNT packets or a SIGTERM, whichever comes
 * first, then prints one line: "sent N packets in S.SSS s (R/s)". -S: the
 * same SEED sends the same sources and ports (selftests/hash_acl.sh
 * compares where two balancers send the same flows).
 * Run it only where the prefix is routed back into the test's namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct pkt {
	struct iphdr ip;
	union {
		struct tcphdr tcp;
		struct udphdr udp;
	};
	uint8_t payload[16];	/* UDP: 8 bytes; TCP -A: 16 */
};

static uint64_t rnd_state;

/* xorshift64*: fast, and every source is as likely as another. */
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)p[0] << 8 | p[1];
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* The TCP or UDP checksum over the IPv4 pseudo header and @len bytes. */
static uint16_t l4_csum(const struct iphdr *ip, const void *l4, size_t len)
{
	uint32_t sum = 0;

	sum = csum_add(sum, &ip->saddr, 4);
	sum = csum_add(sum, &ip->daddr, 4);
	sum += ip->protocol;
	sum += (uint32_t)len;
	sum = csum_add(sum, l4, len);
	return csum_fold(sum);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: klb_synflood -d ADDR -p PORT -s PREFIX/LEN [-r PPS] [-t SECS] [-n COUNT] [-u|-A|-R] [-S SEED]\n");
	exit(2);
}

/* Build the next packet in @p: a new random source, checksums. */
static size_t build(struct pkt *p, uint32_t net, uint32_t hostmask,
		    struct in_addr dst, uint16_t dport, int udp, char tcpmode)
{
	size_t l4len = udp ? sizeof(struct udphdr) + 8 :
		       tcpmode == 'A' ? sizeof(struct tcphdr) + 16 :
		       sizeof(struct tcphdr);
	uint32_t host;

	memset(p, 0, sizeof(*p));
	/* neither the network nor the broadcast address of the prefix */
	do {
		host = rnd() & hostmask;
	} while (hostmask > 1 && (host == 0 || host == hostmask));
	p->ip.version = 4;
	p->ip.ihl = 5;
	p->ip.ttl = 64;
	p->ip.protocol = udp ? IPPROTO_UDP : IPPROTO_TCP;
	p->ip.saddr = htonl(net | host);
	p->ip.daddr = dst.s_addr;
	p->ip.tot_len = htons(sizeof(struct iphdr) + l4len);
	p->ip.id = htons(rnd());
	/* the kernel fills the IP checksum of an IP_HDRINCL packet */
	if (udp) {
		p->udp.source = htons(1024 + rnd() % 64512);
		p->udp.dest = htons(dport);
		p->udp.len = htons(l4len);
		memcpy(p->payload, "klbflood", 8);
		p->udp.check = l4_csum(&p->ip, &p->udp, l4len);
	} else {
		p->tcp.source = htons(1024 + rnd() % 64512);
		p->tcp.dest = htons(dport);
		p->tcp.seq = htonl(rnd());
		p->tcp.doff = 5;
		if (tcpmode == 'A') {
			p->tcp.ack = 1;
			p->tcp.psh = 1;
			p->tcp.ack_seq = htonl(rnd());
			memcpy(p->payload, "klbflood-ackdata", 16);
		} else if (tcpmode == 'R') {
			p->tcp.rst = 1;
		} else {
			p->tcp.syn = 1;
		}
		p->tcp.window = htons(64240);
		p->tcp.check = l4_csum(&p->ip, &p->tcp, l4len);
	}
	return sizeof(struct iphdr) + l4len;
}

/* SIGTERM ends the flood early, still printing what was sent. */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	double rate = 0, secs = 5, t0, elapsed;
	unsigned long long count = 0, sent = 0, failed = 0;
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint32_t net = 0, hostmask = 0;
	int port = -1, udp = 0, fd, one = 1, opt, len = -1;
	char tcpmode = 'S';
	uint64_t seed = 0;
	char *slash;
	struct pkt p;

	while ((opt = getopt(argc, argv, "d:p:s:r:t:n:uARS:")) != -1) {
		switch (opt) {
		case 'd':
			if (inet_pton(AF_INET, optarg, &to.sin_addr) != 1)
				usage();
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 's': {
			struct in_addr a;

			slash = strchr(optarg, '/');
			if (!slash)
				usage();
			*slash = 0;
			len = atoi(slash + 1);
			if (inet_pton(AF_INET, optarg, &a) != 1 || len < 8 || len > 32)
				usage();
			hostmask = len == 32 ? 0 : 0xffffffffu >> len;
			net = ntohl(a.s_addr) & ~hostmask;
			break;
		}
		case 'r':
			rate = atof(optarg);
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 'u':
			udp = 1;
			break;
		case 'A':
		case 'R':
			tcpmode = (char)opt;
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (!to.sin_addr.s_addr || port <= 0 || port > 65535 || len < 0)
		usage();

	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one))) {
		perror("klb_synflood: raw socket");
		return 1;
	}
	rnd_state = seed ? seed : (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
	rnd_state ^= 0x9e3779b97f4a7c15ULL;
	if (!rnd_state)		/* xorshift would stay 0 */
		rnd_state = 1;

	signal(SIGTERM, on_term);
	t0 = now();
	while (!stop) {
		size_t n;

		elapsed = now() - t0;
		if (elapsed >= secs || (count && sent >= count))
			break;
		/* paced: never ahead of rate * elapsed */
		if (rate > 0 && sent >= rate * elapsed) {
			usleep(200);
			continue;
		}
		n = build(&p, net, hostmask, to.sin_addr, port, udp, tcpmode);
		if (sendto(fd, &p, n, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			/* a full qdisc or neighbour queue: try again */
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("klb_synflood: sendto");
				return 1;
			}
			failed++;
			continue;
		}
		sent++;
	}
	elapsed = now() - t0;
	printf("sent %llu packets in %.3f s (%.0f/s)%s\n", sent, elapsed,
	       elapsed > 0 ? sent / elapsed : 0.0,
	       failed ? " (some sends retried: ENOBUFS)" : "");
	close(fd);
	return 0;
}
