// SPDX-License-Identifier: GPL-2.0
/*
 * Slot placement (uapi/ringsteer.h "Slot placement"), compiled into the
 * module and into ringctl and the unit tests like the ring.
 *
 * Why probing and not a table of rankings: the owner must depend only on
 * the set of live slots (so that two hosts with the same configuration
 * agree whatever their history, and a change moves only the flows of the
 * slots it adds or removes), which makes every flow's preference a fixed
 * order of the slot space; a probe sequence is that order, computed on
 * demand. Its cost is about capacity / live probes on average, at most
 * RS_SLOTS_PROBES, which is why the slot space should be at most a few
 * times the slots held.
 *
 * The scan that answers after the last probe reads a summary, a bit for
 * each 64-slot word of the map, so that it costs at most 3 + C / 4096
 * words of the table (uapi) however sparse the slot space, not C / 64.
 */
#include "slots.h"

#define SPLITMIX_GAMMA	0x9e3779b97f4a7c15ULL

/* SplitMix64's output function (Steele, Lea, Flood 2014). */
static u64 splitmix_mix(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

u32 rs_slots_probe(u64 pos, u32 i, u32 bits)
{
	u64 x = splitmix_mix(pos + (u64)(i + 1) * SPLITMIX_GAMMA);

	return (u32)(x >> (64 - bits));
}

static bool slot_live(const struct rs_slots *s, u32 slot)
{
	return s->map[slot / 64] & (1ULL << (slot % 64));
}

static u32 map_words(u32 bits)
{
	return bits >= 6 ? 1U << (bits - 6) : 1;
}

/* Words of the summary: a bit for each word of the map. */
static u32 summary_words(u32 bits)
{
	return bits >= 12 ? 1U << (bits - 12) : 1;
}

static void set_live(struct rs_slots *s, u32 slot)
{
	s->map[slot / 64] |= 1ULL << (slot % 64);
	s->summary[slot / 4096] |= 1ULL << (slot / 64 % 64);
}

/*
 * The rest of @from's word, then the summary from the next word on: the
 * summary's first word masked, the others whole, wrapping back to the
 * first whole (the live slots of @from's word below @from come last).
 */
u32 rs_slots_scan(const struct rs_slots *s, u32 from, u32 *reads)
{
	u32 words = map_words(s->bits), sw = summary_words(s->bits);
	u32 w = from / 64, j, n;
	u64 bits = s->map[w] & (~0ULL << (from % 64));

	if (reads)
		*reads = 1;
	if (bits)
		return w * 64 + rs_ffs64(bits);
	w = (w + 1) & (words - 1);
	j = w / 64;
	bits = s->summary[j] & (~0ULL << (w % 64));
	for (n = 0; n <= sw; n++) {
		if (reads)
			*reads = n + 2;
		if (bits) {
			w = j * 64 + rs_ffs64(bits);
			if (reads)
				*reads = n + 3;
			return w * 64 + rs_ffs64(s->map[w]);
		}
		j = (j + 1) & (sw - 1);
		bits = s->summary[j];
	}
	return 0;	/* not reached: some slot is live */
}

int rs_slots_find(const struct rs_slots *s, u64 pos, u32 *probes)
{
	u32 i, slot;

	if (!s->live)
		return -ENOENT;
	for (i = 0; i < RS_SLOTS_PROBES; i++) {
		slot = rs_slots_probe(pos, i, s->bits);
		if (slot_live(s, slot)) {
			if (probes)
				*probes = i + 1;
			return slot;
		}
	}
	if (probes)
		*probes = RS_SLOTS_PROBES + 1;
	return rs_slots_scan(s, rs_slots_probe(pos, 0, s->bits), NULL);
}

struct rs_slots *rs_slots_build(u32 bits, const struct rs_slot_holder *h,
				u32 n)
{
	u32 cap, words, sw, i;
	struct rs_slots *s;
	size_t size;

	if (bits < RS_SLOTS_MIN_BITS || bits > RS_SLOTS_MAX_BITS)
		return ERR_PTR(-ERANGE);
	cap = 1U << bits;
	words = map_words(bits);
	sw = summary_words(bits);
	size = sizeof(*s) + (words + sw) * sizeof(u64) + cap * sizeof(u16);
	s = rs_alloc(size);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->bits = bits;
	s->live = 0;
	s->size = size;
	s->map = (u64 *)(s + 1);
	s->summary = s->map + words;
	s->owner = (u16 *)(s->summary + sw);
	memset(s->map, 0, (words + sw) * sizeof(u64));
	memset(s->owner, 0, cap * sizeof(u16));
	for (i = 0; i < n; i++) {
		int err = h[i].slot >= cap ? -ERANGE :
			  slot_live(s, h[i].slot) ? -EEXIST : 0;

		if (err) {
			rs_free(s);
			return ERR_PTR(err);
		}
		set_live(s, h[i].slot);
		s->owner[h[i].slot] = h[i].member;
		s->live++;
	}
	return s;
}

void rs_slots_free(struct rs_slots *s)
{
	rs_free(s);
}
