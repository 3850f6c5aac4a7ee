// SPDX-License-Identifier: GPL-2.0
/* Maglev tables for comparison (maglev.h). */
#include "maglev.h"
#include "ringmath.h"

static u64 member_hash(const struct rs_key *key, const struct rs_member *m,
		       u8 salt)
{
	u8 buf[RINGSTEER_ID_LEN + 1];

	rs_member_id(m, buf);
	buf[RINGSTEER_ID_LEN] = salt;
	return rs_siphash(buf, sizeof(buf), key);
}

struct perm {
	u32 offset, skip, next, turns;
};

/* The next entry of @p's permutation that is still free, taken. */
static void take_one(struct maglev *t, struct perm *p, u16 idx, u32 *filled)
{
	u32 c;

	do {
		c = (u32)(((u64)p->offset + (u64)p->skip * p->next) % t->size);
		p->next++;
	} while (t->owner[c] != U16_MAX);
	t->owner[c] = idx;
	(*filled)++;
}

int maglev_build(struct maglev *t, const struct rs_key *key,
		 const struct rs_member *m, u32 n, u32 size)
{
	struct perm *p;
	u32 i, k, g = 0, filled = 0;

	if (!n || size <= n || n > U16_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!m[i].weight)
			return -ERANGE;
		g = (u32)sim_gcd(m[i].weight, g);
	}
	p = calloc(n, sizeof(*p));
	t->owner = malloc(size * sizeof(*t->owner));
	if (!p || !t->owner) {
		free(p);
		free(t->owner);
		return -ENOMEM;
	}
	t->size = size;
	t->nmembers = n;
	memset(t->owner, 0xff, size * sizeof(*t->owner));
	for (i = 0; i < n; i++) {
		p[i].offset = member_hash(key, &m[i], 'o') % size;
		p[i].skip = member_hash(key, &m[i], 's') % (size - 1) + 1;
		p[i].turns = m[i].weight / g;
	}
	while (filled < size)
		for (i = 0; i < n && filled < size; i++)
			for (k = 0; k < p[i].turns && filled < size; k++)
				take_one(t, &p[i], (u16)i, &filled);
	free(p);
	return 0;
}

void maglev_free(struct maglev *t)
{
	free(t->owner);
	t->owner = NULL;
}

void maglev_shares(const struct maglev *t, double *share)
{
	u32 i;

	for (i = 0; i < t->nmembers; i++)
		share[i] = 0;
	for (i = 0; i < t->size; i++)
		share[t->owner[i]] += 1.0 / t->size;
}
