// SPDX-License-Identifier: GPL-2.0
/*
 * Dense per-CPU entries of a service's backends (tally.h).
 */

#include <linux/random.h>
#include <linux/slab.h>

#include "tally.h"

static struct rs_tally_block *block_alloc(void)
{
	struct rs_tally_block *blk;
	int cpu, i;

	blk = kzalloc(sizeof(*blk), GFP_KERNEL_ACCOUNT);
	if (!blk)
		return NULL;
	blk->pcpu = alloc_percpu_gfp(struct rs_tally, GFP_KERNEL_ACCOUNT);
	if (!blk->pcpu) {
		kfree(blk);
		return NULL;
	}
	for_each_possible_cpu(cpu) {
		struct rs_tally *t = per_cpu_ptr(blk->pcpu, cpu);

		for (i = 0; i < RS_TALLY_BLOCK; i++)
			u64_stats_init(&t->new_flows[i].syncp);
	}
	refcount_set(&blk->refs, 1);
	return blk;
}

static void block_put(struct rs_tally_block *blk)
{
	if (!refcount_dec_and_test(&blk->refs))
		return;
	free_percpu(blk->pcpu);
	kfree(blk);
}

/*
 * Nothing writes a free entry: its last backend was unreachable for a
 * grace period before it gave the entry back.
 */
static void entry_reset(struct rs_tally_block *blk, unsigned int idx)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rs_tally *t = per_cpu_ptr(blk->pcpu, cpu);

		u64_stats_set(&t->new_flows[idx].count, 0);
		/* As the kernel starts a connected socket's IDs (inet_id). */
		t->outer_id[idx] = get_random_u16();
	}
}

int rs_tally_take(struct list_head *blocks, struct rs_backend *b)
{
	struct rs_tally_block *blk;
	unsigned long idx;

	/* Other CPUs only clear bits: a word read as not full stays so. */
	list_for_each_entry(blk, blocks, node) {
		unsigned long used = READ_ONCE(blk->used);

		if (used != ~0UL) {
			idx = ffz(used);
			goto found;
		}
	}
	blk = block_alloc();
	if (!blk)
		return -ENOMEM;
	list_add_tail(&blk->node, blocks);
	idx = 0;
found:
	set_bit(idx, &blk->used);
	refcount_inc(&blk->refs);
	entry_reset(blk, idx);
	b->tally_block = blk;
	b->tally = blk->pcpu;
	b->tally_idx = idx;
	return 0;
}

void rs_tally_give_back(struct rs_backend *b)
{
	struct rs_tally_block *blk = b->tally_block;

	if (!blk)
		return;
	clear_bit(b->tally_idx, &blk->used);
	block_put(blk);
	b->tally_block = NULL;
}

void rs_tally_blocks_put(struct list_head *blocks)
{
	struct rs_tally_block *blk, *tmp;

	list_for_each_entry_safe(blk, tmp, blocks, node) {
		list_del(&blk->node);
		block_put(blk);
	}
}
