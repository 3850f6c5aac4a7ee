// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's own judges (selftests/fuzz/msg.c): the request reader must
 * find the flaws the kernel must refuse, and the answer validator must
 * refuse malformed answers built here by hand. A judge that accepts
 * everything would let the fuzzer pass whatever the kernel does.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "../fuzz/msg.h"

#define FAMILY_ID 0x20

static struct fz_buf b;

static void svc_nest(uint16_t nest_type, uint16_t family, uint32_t alen)
{
	uint8_t addr[17] = { 10, 0, 0, 1 };
	uint16_t port = htons(80);
	uint8_t proto = IPPROTO_TCP;
	uint32_t nest = fz_nest_start(&b, nest_type);

	fz_attr(&b, RINGSTEER_SERVICE_A_FAMILY, &family, 2);
	fz_attr(&b, RINGSTEER_SERVICE_A_ADDR, addr, alen);
	fz_attr(&b, RINGSTEER_SERVICE_A_PORT, &port, 2);
	fz_attr(&b, RINGSTEER_SERVICE_A_PROTO, &proto, 1);
	fz_nest_end(&b, nest);
}

static void parse(struct fz_req *q, bool priv)
{
	fz_end(&b);
	fz_parse_request(q, b.p, b.len, priv);
}

static void begin(uint8_t cmd, uint16_t flags)
{
	fz_begin(&b, FAMILY_ID, NLM_F_REQUEST | NLM_F_ACK | flags, 7, cmd,
		 RINGSTEER_GENL_VERSION);
}

TEST(well_formed_request)
{
	struct fz_req q;
	uint32_t keep = RINGSTEER_F_KEEP_FLOWS;

	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_EQ(RINGSTEER_CMD_SERVICE_NEW, q.cmd);
	EXPECT_EQ(SVC_ID, q.svc.present);
	EXPECT_EQ(AF_INET, q.svc.family);
	EXPECT_EQ(80, q.svc.port);
	EXPECT_EQ(4, q.svc.alen);
	EXPECT_EQ(5U, q.noffs);		/* the nest, four values */

	/* A flag the command gives no meaning to is refused. */
	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	fz_attr(&b, RINGSTEER_A_FLAGS, &keep, 4);
	parse(&q, true);
	EXPECT_NE(0U, q.policy);
}

TEST(flaws_the_kernel_must_refuse)
{
	uint32_t big = RINGSTEER_MAX_WEIGHT + 1, junk = 1;
	struct fz_req q;

	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE, AF_INET, 4);	/* no NLA_F_NESTED */
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	/* No policy length for an address: refused on its family's (EINVAL). */
	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 17);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_EQ(17, q.svc.alen);

	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	fz_attr(&b, RINGSTEER_A_POSITION, &junk, 4);	/* a reply attribute */
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	begin(RINGSTEER_CMD_BACKEND_SET, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	junk = fz_nest_start(&b, RINGSTEER_A_BACKEND | NLA_F_NESTED);
	fz_attr(&b, RINGSTEER_BACKEND_A_WEIGHT, &big, 4);
	fz_nest_end(&b, junk);
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	/* Truncated: the last attribute runs past the message. */
	begin(RINGSTEER_CMD_SERVICE_DEL, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	b.len -= 4;
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	begin(RINGSTEER_CMD_SERVICE_NEW, NLM_F_DUMP);
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_EOPNOTSUPP, q.policy);
	parse(&q, false);
	EXPECT_EQ((uint32_t)FZ_EOPNOTSUPP | FZ_EPERM, q.policy);

	begin(RINGSTEER_CMD_FLUSH, 0);
	parse(&q, false);
	EXPECT_EQ((uint32_t)FZ_EPERM, q.policy);
	begin(RINGSTEER_CMD_SERVICE_GET, NLM_F_DUMP);
	parse(&q, false);
	EXPECT_EQ(0U, q.policy);
}

static void be_nest(void)
{
	uint8_t addr[4] = { 10, 1, 0, 1 };
	uint16_t family = AF_INET, port = htons(8080);
	uint32_t nest = fz_nest_start(&b, RINGSTEER_A_BACKEND | NLA_F_NESTED);

	fz_attr(&b, RINGSTEER_BACKEND_A_FAMILY, &family, 2);
	fz_attr(&b, RINGSTEER_BACKEND_A_ADDR, addr, 4);
	fz_attr(&b, RINGSTEER_BACKEND_A_PORT, &port, 2);
	fz_nest_end(&b, nest);
}

/* Counting connections needs CAP_NET_ADMIN; reading backends does not. */
TEST(conns_need_cap_net_admin)
{
	uint32_t conns = RINGSTEER_F_CONNS, none = 0;
	struct fz_req q;

	begin(RINGSTEER_CMD_BACKEND_GET, NLM_F_DUMP);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	fz_attr(&b, RINGSTEER_A_FLAGS, &conns, 4);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_EQ((uint32_t)RINGSTEER_F_CONNS, q.flags);
	EXPECT_FALSE(q.maybe);
	parse(&q, false);
	EXPECT_EQ((uint32_t)FZ_EPERM, q.policy);

	begin(RINGSTEER_CMD_BACKEND_GET, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	be_nest();
	fz_attr(&b, RINGSTEER_A_FLAGS, &conns, 4);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	parse(&q, false);
	EXPECT_EQ((uint32_t)FZ_EPERM, q.policy);

	begin(RINGSTEER_CMD_BACKEND_GET, NLM_F_DUMP);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	fz_attr(&b, RINGSTEER_A_FLAGS, &none, 4);
	parse(&q, false);
	EXPECT_EQ(0U, q.policy);

	/* A flaw of the request itself comes first. */
	begin(RINGSTEER_CMD_BACKEND_GET, NLM_F_DUMP);
	svc_nest(RINGSTEER_A_SERVICE, AF_INET, 4);
	fz_attr(&b, RINGSTEER_A_FLAGS, &conns, 4);
	parse(&q, false);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);
}

TEST(repeated_nest_replaces_the_first)
{
	uint8_t proto = 99;
	struct fz_req q;
	uint32_t nest;

	begin(RINGSTEER_CMD_SERVICE_DEL, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	nest = fz_nest_start(&b, RINGSTEER_A_SERVICE | NLA_F_NESTED);
	fz_attr(&b, RINGSTEER_SERVICE_A_PROTO, &proto, 1);
	fz_nest_end(&b, nest);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_EQ(B(RINGSTEER_SERVICE_A_PROTO), q.svc.present);
	EXPECT_EQ(99, q.svc.proto);
}

/* An NLMSG_ERROR for the request in b, with ERR and TLV bytes after it. */
static struct fz_buf ack;

static void make_ack(int err, bool capped, const void *tlv, uint32_t n)
{
	struct nlmsghdr h = { .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = 7 };
	uint32_t echo = capped ? NLMSG_HDRLEN : b.len;

	h.nlmsg_flags = (capped ? NLM_F_CAPPED : 0) | (n ? NLM_F_ACK_TLVS : 0);
	ack.len = 0;
	fz_put(&ack, &h, sizeof(h));
	fz_put(&ack, &err, sizeof(err));
	fz_put(&ack, b.p, echo);
	fz_pad(&ack);
	fz_put(&ack, tlv, n);
	((struct nlmsghdr *)ack.p)->nlmsg_len = ack.len;
}

static const char *check_ack(const struct fz_req *q, int *err)
{
	bool msg;

	return fz_check_error((const struct nlmsghdr *)ack.p, b.p, q, err, &msg);
}

TEST(validator_errors)
{
	struct { struct nlattr a; char s[8]; } text = {
		{ NLA_HDRLEN + 7, NLMSGERR_ATTR_MSG }, "no svc" };
	struct { struct nlattr a; uint32_t off; } offs = {
		{ NLA_HDRLEN + 4, NLMSGERR_ATTR_OFFS }, 0 };
	struct fz_req q;
	int err = 0;

	begin(RINGSTEER_CMD_SERVICE_DEL, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	parse(&q, true);

	make_ack(0, true, NULL, 0);
	EXPECT_EQ(NULL, check_ack(&q, &err));
	EXPECT_EQ(0, err);

	make_ack(-ENOENT, false, &text, sizeof(text));
	EXPECT_EQ(NULL, check_ack(&q, &err));
	EXPECT_EQ(ENOENT, err);

	/* The message loses its NUL. */
	text.s[6] = 'x';
	make_ack(-ENOENT, false, &text, sizeof(text));
	EXPECT_NE(NULL, check_ack(&q, &err));

	/* A TLV longer than the ack. */
	text.a.nla_len = 200;
	make_ack(-ENOENT, false, &text, sizeof(text));
	EXPECT_NE(NULL, check_ack(&q, &err));

	/* OFFS at an attribute, then into the middle of one. */
	offs.off = q.offs[1];
	make_ack(-EINVAL, true, &offs, sizeof(offs));
	EXPECT_EQ(NULL, check_ack(&q, &err));
	offs.off = q.offs[1] + 2;
	make_ack(-EINVAL, true, &offs, sizeof(offs));
	EXPECT_NE(NULL, check_ack(&q, &err));

	make_ack(5, true, NULL, 0);
	EXPECT_NE(NULL, check_ack(&q, &err));
	make_ack(-5000, true, NULL, 0);
	EXPECT_NE(NULL, check_ack(&q, &err));

	/* Success must come capped; bytes after it need NLM_F_ACK_TLVS. */
	make_ack(0, false, NULL, 0);
	EXPECT_NE(NULL, check_ack(&q, &err));
	make_ack(0, true, &offs, sizeof(offs));
	((struct nlmsghdr *)ack.p)->nlmsg_flags &= ~NLM_F_ACK_TLVS;
	EXPECT_NE(NULL, check_ack(&q, &err));

	/* The echo is not the request. */
	make_ack(-ENOENT, false, NULL, 0);
	ack.p[ack.len - 1] ^= 1;
	EXPECT_NE(NULL, check_ack(&q, &err));
}

/* A SERVICE_GET reply; SKIP leaves one attribute out, EXTRA adds one. */
static void make_service_reply(int skip, int extra)
{
	uint32_t v32 = 1, nest;
	uint64_t v64 = 0;
	unsigned int i;
	int t;

	fz_begin(&b, FAMILY_ID, 0, 7, RINGSTEER_CMD_SERVICE_GET, RINGSTEER_GENL_VERSION);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	/* Reopen the nest to add the rest of a full service. */
	nest = NLMSG_HDRLEN + GENL_HDRLEN;
	for (t = RINGSTEER_SERVICE_A_VNODES; t <= RINGSTEER_SERVICE_A_NO_BACKEND; t++) {
		if (t == skip)
			continue;
		if (t <= RINGSTEER_SERVICE_A_POINTS)
			fz_attr(&b, t, &v32, 4);
		else
			fz_attr(&b, t, &v64, 8);
	}
	/* The settings every reply carries, from ringctl's table (0: defaults). */
	for (i = 0; i < rc_nsettings; i++) {
		t = rc_settings[i].attr;
		if (rc_settings[i].obj != RC_OBJ_SERVICE || rc_settings[i].parent != RC_NO_PARENT ||
		    t == skip || (t >= RINGSTEER_SERVICE_A_VNODES && t <= RINGSTEER_SERVICE_A_NO_BACKEND))
			continue;
		fz_attr(&b, t, &v64, 4);
	}
	if (extra)
		fz_attr(&b, extra, &v32, 4);
	fz_nest_end(&b, nest);
	fz_end(&b);
}

TEST(validator_replies)
{
	struct fz_reply r;
	bool msg;
	int err;

	make_service_reply(0, 0);
	EXPECT_EQ(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
	EXPECT_EQ(1U, r.backends);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));

	make_service_reply(RINGSTEER_SERVICE_A_POINTS, 0);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
	make_service_reply(RINGSTEER_SERVICE_A_ON_DOWN, 0);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
	make_service_reply(0, 30);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
	make_service_reply(0, RINGSTEER_SERVICE_A_VNODES);	/* repeated */
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));

	/* The outer nest claims more than the message holds. */
	make_service_reply(0, 0);
	((struct nlattr *)(b.p + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len += 8;
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));

	/* NLMSG_DONE needs its int. */
	fz_begin(&b, NLMSG_DONE, NLM_F_MULTI, 7, 0, 0);
	b.len = NLMSG_HDRLEN + 2;
	fz_end(&b);
	EXPECT_NE(NULL, fz_check_done((struct nlmsghdr *)b.p, NULL, &err, &msg));
	b.len = NLMSG_HDRLEN;
	fz_put(&b, &(int){ -EINVAL }, sizeof(int));
	fz_end(&b);
	EXPECT_EQ(NULL, fz_check_done((struct nlmsghdr *)b.p, NULL, &err, &msg));
	EXPECT_EQ(EINVAL, err);
}

/* Attribute types past 31 (capacity is 32) count like any other. */
TEST(attributes_past_bit_31)
{
	uint32_t slots = RINGSTEER_PLACEMENT_SLOTS, cap = 1024, nest;
	struct fz_reply r;
	struct fz_req q;

	begin(RINGSTEER_CMD_SERVICE_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	/* Reopen the nest for placement and capacity. */
	nest = NLMSG_HDRLEN + GENL_HDRLEN;
	fz_attr(&b, RINGSTEER_SERVICE_A_PLACEMENT, &slots, 4);
	fz_attr(&b, RINGSTEER_SERVICE_A_CAPACITY, &cap, 4);
	fz_nest_end(&b, nest);
	parse(&q, true);
	ASSERT_GT(RINGSTEER_SERVICE_A_CAPACITY, 31);
	EXPECT_EQ(0U, q.policy);
	EXPECT_TRUE(!!(q.svc.present & B(RINGSTEER_SERVICE_A_CAPACITY)));
	EXPECT_EQ(1024U, FZ_SET(&q.svc, CAPACITY));

	/* Below the policy's minimum. */
	cap = 1;
	memcpy(b.p + b.len - 4, &cap, 4);
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	make_service_reply(0, RINGSTEER_SERVICE_A_CAPACITY);
	EXPECT_EQ(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
	fz_attr(&b, RINGSTEER_SERVICE_A_CAPACITY, &cap, 4);	/* repeated */
	((struct nlattr *)(b.p + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len += 8;
	fz_end(&b);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_SERVICE_GET, &r));
}

/* A BACKEND_GET reply whose backend holds SLOTS (LEN bytes). */
static void make_backend_reply(const uint16_t *slots, uint32_t len)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0, nest;
	unsigned int i;

	fz_begin(&b, FAMILY_ID, 0, 7, RINGSTEER_CMD_BACKEND_GET, RINGSTEER_GENL_VERSION);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	/* Reopen the backend's nest for the rest. */
	nest = b.len;
	be_nest();
	for (i = 0; i < rc_nsettings; i++)
		if (rc_settings[i].obj == RC_OBJ_BACKEND && rc_settings[i].parent == RC_NO_PARENT)
			fz_attr(&b, rc_settings[i].attr, &v32, 4);
	fz_attr(&b, RINGSTEER_BACKEND_A_FLOWS, &v64, 8);
	fz_attr(&b, RINGSTEER_BACKEND_A_SHARE, &v64, 8);
	if (slots)
		fz_attr(&b, RINGSTEER_BACKEND_A_SLOTS, slots, len);
	fz_nest_end(&b, nest);
	fz_end(&b);
}

/*
 * Slots: a request's are kept as they came, whatever their length (the
 * kernel judges it with the backend's settings); a reply's are an even
 * number of bytes, ascending.
 */
TEST(slots)
{
	uint16_t v[] = { 9, 3, 200, 7 };
	struct fz_reply r;
	struct fz_req q;
	uint32_t nest;

	begin(RINGSTEER_CMD_BACKEND_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	be_nest();
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_FALSE(!!(q.be.present & B(RINGSTEER_BACKEND_A_SLOTS)));

	begin(RINGSTEER_CMD_BACKEND_NEW, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	nest = b.len;
	be_nest();
	fz_attr(&b, RINGSTEER_BACKEND_A_SLOTS, v, 5);
	fz_nest_end(&b, nest);
	parse(&q, true);
	EXPECT_EQ(0U, q.policy);
	EXPECT_TRUE(!!(q.be.present & B(RINGSTEER_BACKEND_A_SLOTS)));
	EXPECT_EQ(5U, q.be.slots_len);
	EXPECT_EQ(2U, fz_nslots(&q.be));
	EXPECT_EQ(3, q.be.slots[1]);

	/* Not a backend-del's. */
	begin(RINGSTEER_CMD_BACKEND_DEL, 0);
	svc_nest(RINGSTEER_A_SERVICE | NLA_F_NESTED, AF_INET, 4);
	nest = b.len;
	be_nest();
	fz_attr(&b, RINGSTEER_BACKEND_A_SLOTS, v, 4);
	fz_nest_end(&b, nest);
	parse(&q, true);
	EXPECT_EQ((uint32_t)FZ_POLICY, q.policy);

	make_backend_reply(NULL, 0);
	EXPECT_EQ(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
	EXPECT_FALSE(!!(r.be.present & B(RINGSTEER_BACKEND_A_SLOTS)));
	v[0] = 1;
	make_backend_reply(v, 6);
	EXPECT_EQ(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
	EXPECT_EQ(3U, fz_nslots(&r.be));
	EXPECT_EQ(200, r.be.slots[2]);
	make_backend_reply(v, 2);
	EXPECT_EQ(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
	make_backend_reply(v, 5);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
	make_backend_reply(v, 0);
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
	make_backend_reply(v, 8);	/* 200 before 7 */
	EXPECT_NE(NULL, fz_check_data((struct nlmsghdr *)b.p, RINGSTEER_CMD_BACKEND_GET, &r));
}

TEST_HARNESS_MAIN
