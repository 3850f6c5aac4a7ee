// SPDX-License-Identifier: GPL-2.0
/*
 * The packet fuzzer's own parts (selftests/pktfuzz/), on the host: the
 * same seed makes the same frames; the checksums and fragments it builds
 * are a correct sender's; the tag of an input is found in every copy of
 * it the load balancer may send (routed, in a tunnel, quoted by an ICMP
 * error); and the judge fails what it must fail and passes what it must
 * pass. A judge that finds nothing would let fuzz_packets pass whatever
 * the kernel does. Held flows: inputs aimed at them change no other
 * input, a client's FIN or RST is known as the end of its flow, and the
 * judge fails a held flow's packet that left its backend.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "kselftest_harness.h"
#include "../pktfuzz/pktfuzz.h"

static const char topo_text[] =
	"mtu 1500\n"
	"client 10.1.0.2 fd01::2\n"
	"lb 10.0.0.100\nlb fd00::100\n"
	"link pf-cli cli0 02:00:00:00:00:02 02:00:00:00:00:01 0\n"
	"lb 10.1.0.1\nlb fd01::1\nbcast 10.1.0.255\n"
	"link pf-b1 eth0 02:00:00:00:01:02 02:00:00:00:01:01 1 10.2.1.2 fd02:1::2\n"
	"lb 10.2.1.1\nlb fd02:1::1\nbcast 10.2.1.255\n"
	"link pf-b2 eth0 02:00:00:00:02:02 02:00:00:00:02:01 2 10.2.2.2 fd02:2::2\n"
	"link pf-b3 eth0 02:00:00:00:03:02 02:00:00:00:03:01 3 10.2.3.2 fd02:3::2\n"
	"service tunnel ipip 0 10.0.0.200 80 tcp 80\n"
	"service tunnel gue 6080 10.0.0.200 80 udp 80\n"
	"service tunnel ipip 0 fd00::200 80 tcp 80\n"
	"service tunnel gue 6080 fd00::200 80 udp 80\n"
	"service nat - 0 10.0.0.100 80 tcp 8080\n"
	"service nat - 0 fd00::100 80 udp 8080\n";

static struct topo t;
static struct gen g, g2;

static void load_topo(struct __test_metadata *_metadata)
{
	char path[] = "/tmp/test_pktfuzz.XXXXXX";
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(topo_text), write(fd, topo_text, strlen(topo_text)));
	close(fd);
	ASSERT_EQ(0, topo_read(&t, path));
	unlink(path);
	g.t = g2.t = &t;
}

TEST(same_seed_same_frames)
{
	struct input a, b;
	uint64_t i;
	int k, differ = 0;

	load_topo(_metadata);
	g.seed = g2.seed = 42;
	for (i = 0; i < 3000; i++) {
		gen_input(&g, i, &a);
		gen_input(&g2, i, &b);
		ASSERT_EQ(a.nframes, b.nframes);
		ASSERT_EQ(0, strcmp(a.what, b.what));
		for (k = 0; k < a.nframes; k++) {
			ASSERT_EQ(g.frames[k].len, g2.frames[k].len);
			ASSERT_EQ(0, memcmp(g.frames[k].b, g2.frames[k].b, g.frames[k].len));
		}
	}
	/* Input 7 alone is input 7 of the whole run. */
	gen_input(&g2, 7, &b);
	gen_input(&g, 7, &a);
	ASSERT_EQ(0, strcmp(a.what, b.what));
	g2.seed = 43;
	for (i = 0; i < 100; i++) {
		gen_input(&g, i, &a);
		gen_input(&g2, i, &b);
		differ += strcmp(a.what, b.what) != 0;
	}
	ASSERT_LT(90, differ);
}

static uint16_t sum_over(const uint8_t *b, size_t len, uint32_t sum)
{
	return csum_fold(csum_add(sum, b, len));
}

TEST(checksums_verify)
{
	struct addr s = { .family = AF_INET, .a = { 198, 18, 0, 1 } };
	struct addr d = { .family = AF_INET, .a = { 10, 0, 0, 200 } };
	struct tcp_args ta = { .sport = 1234, .dport = 80, .seq = 1, .flags = 0x02 };
	static struct pkt p;
	uint8_t ph[12];

	ip4_begin(&p, &s, &d, IPPROTO_TCP, 64, 7, true, NULL, 0);
	tcp_put(&p, &ta, NULL, 0);
	memcpy(p.b + p.len, "payload", 7);
	p.len += 7;
	pkt_finish(&p);
	ASSERT_EQ(0, sum_over(p.b, 20, 0));
	memcpy(ph, p.b + 12, 8);
	ph[8] = 0;
	ph[9] = IPPROTO_TCP;
	ph[10] = (p.len - 20) >> 8;
	ph[11] = p.len - 20;
	ASSERT_EQ(0, sum_over(p.b + 20, p.len - 20, csum_add(0, ph, 12)));
	ASSERT_EQ((size_t)16, pkt_csum_at(&p));
	ASSERT_EQ((size_t)20, pkt_l4_hlen(&p));
}

TEST(fragments_are_the_packet)
{
	struct addr s = { .family = AF_INET6 }, d = { .family = AF_INET6 };
	struct frag f[3] = { { 0, 16, true }, { 16, 24, true }, { 40, 1000, false } };
	static struct pkt p, out[3];
	uint8_t whole[PKT_MAX];
	size_t n = 0;
	int i;

	s.a[15] = 1;
	d.a[15] = 2;
	s.a[0] = d.a[0] = 0x20;
	ip6_begin(&p, &s, &d, 64, FL_MARK | 5);
	udp_put(&p, 1000, 80);
	memset(p.b + p.len, 0xab, 50);
	p.len += 50;
	pkt_finish(&p);
	ASSERT_EQ(3, pkt_fragment(&p, f, 3, 99, out));
	for (i = 0; i < 3; i++) {
		/* fragment header after the fixed one, offset and M as asked */
		ASSERT_EQ(IPPROTO_FRAGMENT, out[i].b[6]);
		ASSERT_EQ(IPPROTO_UDP, out[i].b[40]);
		ASSERT_EQ(f[i].off | f[i].more, (size_t)(out[i].b[42] << 8 | out[i].b[43]));
		ASSERT_EQ(out[i].len - 40, (size_t)(out[i].b[4] << 8 | out[i].b[5]));
		memcpy(whole + n, out[i].b + 48, out[i].len - 48);
		n += out[i].len - 48;
	}
	ASSERT_EQ(p.len - 40, n);
	ASSERT_EQ(0, memcmp(whole, p.b + 40, n));
}

/* A frame on @link of @len bytes: Ethernet around @l3. */
static size_t frame(uint8_t *b, const uint8_t *l3, size_t len, bool v6)
{
	memset(b, 0, 14);
	b[0] = 0x02;
	b[12] = v6 ? 0x86 : 0x08;
	b[13] = v6 ? 0xdd : 0x00;
	memcpy(b + 14, l3, len);
	return 14 + len;
}

/*
 * Every plain input to a tunnel VIP, as the LB would send it on: routed
 * (the frame itself), in an ipip tunnel to backend 1, quoted by an ICMP
 * error back to the client. Each copy names its input by tag.
 */
TEST(copies_carry_the_tag)
{
	static struct pkt outer;
	static uint8_t b[FRAME_MAX + 600];
	struct addr lb4 = { .family = AF_INET, .a = { 10, 2, 1, 1 } };
	struct addr be4 = { .family = AF_INET, .a = { 10, 2, 1, 2 } };
	int found[3] = {}, tried = 0;
	struct input in;
	uint64_t i;
	struct hdr h;
	struct out o;
	uint32_t tag;
	size_t len;

	load_topo(_metadata);
	g.seed = 1;
	for (i = 0; i < 5000; i++) {
		gen_input(&g, i, &in);
		if (in.family != AF_INET || in.nframes != 1 || !(in.flags & IN_STEER))
			continue;
		tried++;
		parse_frame(&t, 0, g.frames[0].b, g.frames[0].len, &o);
		found[0] += parse_image(&o, W_OUTER, &h, &tag) && tag == in.tag &&
			    addr_eq(&h.src, &in.src);
		ip4_begin(&outer, &lb4, &be4, IPPROTO_IPIP, 64, 1, false, NULL, 0);
		memcpy(outer.b + outer.len, g.frames[0].b + 14, g.frames[0].len - 14);
		outer.len += g.frames[0].len - 14;
		pkt_finish(&outer);
		len = frame(b, outer.b, outer.len, false);
		parse_frame(&t, 1, b, len, &o);
		found[1] += o.encap && parse_image(&o, W_INNER, &h, &tag) && tag == in.tag;
		ip4_begin(&outer, &lb4, &in.src, IPPROTO_ICMP, 64, 2, false, NULL, 0);
		icmp_put(&outer, 11, 0, 0);
		/* the header with its options and 8 bytes, as RFC 792 asks */
		len = (g.frames[0].b[14] & 0xf) * 4 + 8;
		memcpy(outer.b + outer.len, g.frames[0].b + 14, len);
		outer.len += len;
		pkt_finish(&outer);
		len = frame(b, outer.b, outer.len, false);
		parse_frame(&t, 0, b, len, &o);
		found[2] += parse_image(&o, W_QUOTE, &h, &tag) && tag == in.tag &&
			    addr_eq(&h.dst, &in.dst);
	}
	ASSERT_LT(100, tried);
	ASSERT_EQ(tried, found[0]);
	ASSERT_EQ(tried, found[1]);
	ASSERT_EQ(tried, found[2]);
}

/* The judge, fed outputs by hand: check_finish()'s verdict. */
static int judge(struct __test_metadata *_metadata, bool routed)
{
	static struct pkt outer;
	static uint8_t b[FRAME_MAX + 64];
	struct addr lb4 = { .family = AF_INET, .a = { 10, 2, 1, 1 } };
	struct addr be4 = { .family = AF_INET, .a = { 10, 2, 1, 2 } };
	struct check *c;
	struct input in;
	uint64_t i;
	size_t len;
	int rc;

	load_topo(_metadata);
	g.seed = 3;
	/* One a tunnel service must steer, or one none takes. */
	for (i = 0;; i++) {
		gen_input(&g, i, &in);
		if (in.family == AF_INET && in.nframes == 1 &&
		    (routed ? in.unserved_clear : (in.flags & IN_STEER) && in.flow.svc == 0))
			break;
	}
	/* Its verdict goes to stdout: this test's child only. */
	ASSERT_NE(NULL, freopen("/dev/null", "w", stdout));
	c = check_new(&t, 3, i, 20, 3, false);
	check_input(c, &in);
	if (routed) {
		/* routed back to the client's link, not encapsulated */
		check_frame(c, 0, g.frames[0].b, g.frames[0].len, 0);
	} else {
		ip4_begin(&outer, &lb4, &be4, IPPROTO_IPIP, 64, 1, false, NULL, 0);
		memcpy(outer.b + outer.len, g.frames[0].b + 14, g.frames[0].len - 14);
		outer.len += g.frames[0].len - 14;
		pkt_finish(&outer);
		len = frame(b, outer.b, outer.len, false);
		check_frame(c, 1, b, len, 0);
	}
	rc = check_finish(c, NULL, NULL);
	return rc;
}

TEST(judge_fails_a_routed_vip_packet)
{
	ASSERT_EQ(1, judge(_metadata, true));
}

TEST(judge_passes_a_steered_packet)
{
	ASSERT_EQ(0, judge(_metadata, false));
}

/* A pins file from @text, read against the unit's topology. */
static struct pins *pins_of(struct __test_metadata *_metadata, const char *text)
{
	char path[] = "/tmp/test_pktfuzz_pins.XXXXXX";
	int fd = mkstemp(path);
	struct pins *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
	p = pins_read(&t, path);
	unlink(path);
	return p;
}

static const char held_text[] =
	"10.0.0.200:80 tcp 198.18.0.7:1100 10.2.1.2:80 10.2.2.2:80 held\n"
	"10.0.0.200:80 udp 198.18.0.8:1200 - - held\n"
	"[fd00::200]:80 tcp [2001:db8:1::9]:1300 [fd02:3::2]:80 [fd02:3::2]:80 ended\n"
	"10.0.0.200:80 tcp 198.18.0.7:1101 10.2.1.2:80 10.2.2.2:80 pinned\n";

TEST(pins_read_back)
{
	char path[] = "/tmp/test_pktfuzz_pins.XXXXXX";
	struct flow f = { .svc = 0 };
	struct pins *p, *q;
	struct pin *e;
	int fd;

	load_topo(_metadata);
	p = pins_of(_metadata, held_text);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(3, p->nheld);
	ASSERT_EQ(PIN_HELD, (int)p->held[0]->state);
	ASSERT_EQ(1, p->held[0]->old);
	ASSERT_EQ(2, p->held[0]->now);
	ASSERT_EQ(0, p->held[1]->old);
	ASSERT_EQ(PIN_ENDED, (int)p->held[2]->state);
	ASSERT_EQ(3, p->held[2]->now);
	f.src = p->held[0]->f.src;
	f.sport = 1101;
	e = pins_find(p, &f);
	ASSERT_NE(NULL, e);
	ASSERT_EQ(PIN_PINNED, (int)e->state);
	f.sport = 1102;
	ASSERT_EQ(NULL, pins_find(p, &f));
	/* Written back, the held ones first and in order, and read again. */
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, pins_write(p, &t, path));
	q = pins_read(&t, path);
	unlink(path);
	ASSERT_NE(NULL, q);
	ASSERT_EQ(3, q->nheld);
	ASSERT_EQ(4, (int)q->n);
	ASSERT_EQ(0, memcmp(p->held_flows, q->held_flows, 3 * sizeof(struct flow)));
	ASSERT_EQ(2, q->held[0]->now);
	/* A backend no link has, a NAT service: not a pin. */
	ASSERT_EQ(NULL, pins_of(_metadata, "10.0.0.200:80 tcp 198.18.0.7:1 10.9.9.9:80 - held\n"));
	ASSERT_EQ(NULL, pins_of(_metadata, "10.0.0.100:80 tcp 198.18.0.7:1 - - held\n"));
	pins_free(p);
	pins_free(q);
}

/* Candidates from the pools, none with port 0, the same for the same seed. */
TEST(held_candidates)
{
	char a[4096], b[4096];
	FILE *f;
	size_t n;

	load_topo(_metadata);
	f = fmemopen(a, sizeof(a), "w");
	gen_pick_held(&t, 9, 8, f);
	fclose(f);
	f = fmemopen(b, sizeof(b), "w");
	gen_pick_held(&t, 9, 8, f);
	fclose(f);
	ASSERT_EQ(0, strcmp(a, b));
	n = 0;
	for (char *l = a; (l = strchr(l, '\n')); l++)
		n++;
	/* four tunnel services, eight each */
	ASSERT_EQ((size_t)32, n);
	ASSERT_EQ(NULL, strstr(a, ":0 "));
	ASSERT_NE(NULL, pins_of(_metadata, a));
}

/*
 * With held flows, about one input in a hundred is aimed at one (and is
 * made of its tuple), and every other input is the same as without.
 */
TEST(aimed_inputs_change_no_other)
{
	struct pins *p;
	struct input a, b;
	int aimed = 0, spoofed = 0, floods = 0, k;
	uint64_t i;

	load_topo(_metadata);
	p = pins_of(_metadata, held_text);
	ASSERT_NE(NULL, p);
	g.seed = g2.seed = 77;
	g.held = NULL;
	g.nheld = 0;
	g2.held = p->held_flows;
	g2.nheld = p->nheld;
	for (i = 0; i < 10000; i++) {
		gen_input(&g, i, &a);
		gen_input(&g2, i, &b);
		if (strncmp(b.what, "aimed", 5)) {
			ASSERT_EQ(0, strcmp(a.what, b.what));
			ASSERT_EQ(a.nframes, b.nframes);
			for (k = 0; k < a.nframes; k++)
				ASSERT_EQ(0, memcmp(g.frames[k].b, g2.frames[k].b, g.frames[k].len));
			continue;
		}
		aimed++;
		ASSERT_LE(1, g2.nsent);
		ASSERT_NE(NULL, pins_find(p, &g2.sent[0].f));
		ASSERT_NE(PIN_PINNED, (int)pins_find(p, &g2.sent[0].f)->state);
		ASSERT_EQ(0, g2.sent[0].ends);
		if (b.nframes == 1) {
			const uint8_t *l3 = g2.frames[0].b + 14;
			size_t l4 = b.family == AF_INET ? 20 : 40;

			spoofed++;
			ASSERT_TRUE(!!(b.flags & IN_STEER));
			/* a SYN without ACK */
			if (b.proto == IPPROTO_TCP) {
				ASSERT_EQ(0x02, l3[l4 + 13] & 0x12);
			}
		} else {
			floods++;
			ASSERT_EQ(32, b.nframes);
			ASSERT_EQ(16, g2.nsent);
			ASSERT_FALSE(!!(b.flags & IN_STEER));
		}
	}
	ASSERT_LT(50, aimed);
	ASSERT_GT(200, aimed);
	ASSERT_LT(10, spoofed);
	ASSERT_LT(10, floods);
	g2.held = NULL;
	g2.nheld = 0;
	pins_free(p);
}

/* A client's FIN or RST ends its flow; with SYN and without ACK it does not. */
TEST(fin_or_rst_ends)
{
	int ends = 0, syns = 0, plain = 0;
	struct input in;
	uint64_t i;

	load_topo(_metadata);
	g.seed = 5;
	for (i = 0; i < 20000; i++) {
		uint8_t fl;
		const char *w;

		gen_input(&g, i, &in);
		w = strstr(in.what, "tcp ");
		if (!w || g.nsent != 1 || in.nframes != 1 || strncmp(in.what, "v", 1))
			continue;
		fl = strtoul(w + 4, NULL, 16);
		if ((fl & 0x12) == 0x02) {
			syns++;
			ASSERT_FALSE(g.sent[0].ends);
		} else if (fl & 0x05) {
			ends++;
			ASSERT_TRUE(g.sent[0].ends);
		} else {
			plain++;
			ASSERT_FALSE(g.sent[0].ends);
		}
	}
	ASSERT_LT(100, ends);
	ASSERT_LT(100, syns);
	ASSERT_LT(100, plain);
}

/* Held flow 0's keepalive (10.0.0.200:80 tcp), in ipip to backend @link. */
static size_t keepalive_on(uint8_t *b, const struct pins *p, int link)
{
	static struct pkt outer;
	struct addr lb4 = { .family = AF_INET, .a = { 10, 2, link, 1 } };
	struct addr be4 = { .family = AF_INET, .a = { 10, 2, link, 2 } };

	gen_keepalive(&g, &p->held_flows[0], 0, 3, false, &g.frames[0]);
	ip4_begin(&outer, &lb4, &be4, IPPROTO_IPIP, 64, 1, false, NULL, 0);
	memcpy(outer.b + outer.len, g.frames[0].b + 14, g.frames[0].len - 14);
	outer.len += g.frames[0].len - 14;
	pkt_finish(&outer);
	return frame(b, outer.b, outer.len, false);
}

/*
 * The judge of held flows: held flow 0 had backend 1 before the change
 * and the ring now says 2. On 1 it passes; on 2 it fails, unless an
 * input ended it first; on 3 it fails even then (neither its old backend
 * nor the ring's). A keepalive sent that never arrived fails too.
 */
static int judge_held(struct __test_metadata *_metadata, int link, bool end, int sent)
{
	static uint8_t b[FRAME_MAX + 64];
	struct sent_flow fin;
	struct check *c;
	struct pins *p;
	size_t len;
	int rc;

	load_topo(_metadata);
	p = pins_of(_metadata, held_text);
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, freopen("/dev/null", "w", stdout));
	c = check_new(&t, 3, 0, 20, 3, false);
	check_pins(c, p, NULL);
	if (end) {
		fin = (struct sent_flow){ .f = p->held_flows[0], .ends = true };
		check_sent(c, &fin, 1);
	}
	len = keepalive_on(b, p, link);
	{
		struct out o;
		uint16_t id = 9;

		parse_frame(&t, link, b, len, &o);
		ASSERT_TRUE(parse_keepalive(&o, &id));
		ASSERT_EQ(0, id);
	}
	p->held[0]->sent = sent;
	check_frame(c, link, b, len, 0);
	rc = check_finish(c, NULL, NULL);
	pins_free(p);
	return rc;
}

TEST(judge_held_flow_on_its_backend)
{
	ASSERT_EQ(0, judge_held(_metadata, 1, false, 1));
}

TEST(judge_held_flow_moved)
{
	ASSERT_EQ(1, judge_held(_metadata, 2, false, 1));
}

TEST(judge_ended_flow_to_the_ring)
{
	ASSERT_EQ(0, judge_held(_metadata, 2, true, 1));
}

TEST(judge_ended_flow_elsewhere)
{
	ASSERT_EQ(1, judge_held(_metadata, 3, true, 1));
}

TEST(judge_keepalive_lost)
{
	ASSERT_EQ(1, judge_held(_metadata, 1, false, 2));
}

TEST_HARNESS_MAIN
