#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the fuzzer's table of request shapes from the netlink spec.

fuzz-spec-gen.py SPEC OUT.h

For every command, and for its dump where it has one: the top-level
attributes its request takes, the attributes of the service and backend
nests it takes (the subsets its attribute set names), whether it needs
CAP_NET_ADMIN (uns-admin-perm). The fuzzer's model reads requests with this
table (msg.h), so the spec the kernel's policies are generated from is the
only place a command's shape is written.
"""

import sys

import yaml


def upper(name):
    return name.replace('-', '_').upper()


def kind(attr, prefix):
    """The fuzzer's K_ (request) or R_ (reply) kind of an attribute."""
    t = attr['type']
    if t == 'nest':
        return prefix + 'NEST'
    if t == 'pad':
        return prefix + 'PAD' if prefix == 'R_' else None
    if t == 'u16' and attr.get('byte-order') == 'big-endian':
        return prefix + 'BE16'
    if t in ('u8', 'u16', 'u32', 'u64'):
        return prefix + t.upper()
    if t == 'binary' and 'exact-len' in attr.get('checks', {}):
        return prefix + 'KEY'
    # The spec's binary has no element type: a backend's slots say theirs
    # in their doc ("an array of u16"), an address has its family's length.
    if t == 'binary' and 'array of u16' in ' '.join(attr.get('doc', '').split()):
        return prefix + 'U16S'
    if t == 'binary' and attr['name'] == 'addr':
        return prefix + 'ADDR'
    # Addresses of one family, back to back (lookup's hops).
    if t == 'binary' and attr['name'] == 'hops':
        return prefix + 'ADDRS'
    # Records of struct ringsteer_kept_member (a chain's kept rings).
    if t == 'binary' and attr['name'] == 'kept':
        return prefix + 'KEPT'
    sys.exit('fuzz-spec-gen.py: no fuzzer kind for type %s' % t)


def kinds(spec, sets, root, enum):
    """fz_req_kind and fz_reply_kind: [nest][type], nest 0 the top level.

    A request may carry what some command's request takes (the subsets);
    a reply, what some command's reply names, with the full nests."""
    fam = upper(spec['name'])
    nests = {a['name']: a for a in root['attributes'] if a['type'] == 'nest'}
    req = {None: set()}
    replied = set()
    for op in spec['operations']['list']:
        for mode in ('do', 'dump'):
            replied.update(op.get(mode, {}).get('reply', {}).get('attributes', []))
        op_set = sets[op.get('attribute-set', root['name'])]
        for mode in ('do', 'dump'):
            for a in op.get(mode, {}).get('request', {}).get('attributes', []):
                req[None].add(a)
                if a in nests:
                    sub = next((x.get('nested-attributes') for x in op_set['attributes']
                                if x['name'] == a), None) or nests[a]['nested-attributes']
                    req.setdefault(a, set()).update(x['name'] for x in sets[sub]['attributes'])
    out = []
    for table, prefix in (('fz_req_kind', 'K_'), ('fz_reply_kind', 'R_')):
        out.append('static const uint8_t %s[%s_A_MAX + 1][64] = {' % (table, fam))
        for nest in [None] + list(nests):
            aset = root if nest is None else sets[nests[nest]['nested-attributes']]
            rows = []
            for a in aset['attributes']:
                k = kind(a, prefix)
                if prefix == 'R_':
                    wanted = nest is not None or a['name'] in replied or a['type'] == 'pad'
                else:
                    wanted = a['name'] in req.get(nest, ())
                if k and wanted:
                    rows.append('\t\t[%s] = %s,' % (enum(aset, a['name']), k))
            if rows:
                out.append('\t[%s] = {' % ('0' if nest is None else enum(root, nest)))
                out += rows
                out.append('\t},')
        out.append('};')
        out.append('')
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: fuzz-spec-gen.py SPEC OUT.h')
    with open(sys.argv[1]) as f:
        spec = yaml.safe_load(f)
    sets = {s['name']: s for s in spec['attribute-sets']}
    root = next(s for s in spec['attribute-sets'] if 'subset-of' not in s)
    fam = upper(spec['name'])

    def enum(aset, attr):
        prefix = sets[aset.get('subset-of', aset['name'])]['name-prefix']
        return upper(prefix + attr)

    def nest_mask(op_set, nest_attr, attrs):
        """The subset of @nest_attr's nest this command's set names."""
        if nest_attr not in attrs:
            return '0'
        aset = sets[op_set]
        nested = next((a.get('nested-attributes') for a in aset['attributes']
                       if a['name'] == nest_attr), None)
        if nested is None:
            nested = next(a['nested-attributes'] for a in root['attributes']
                          if a['name'] == nest_attr)
        names = [a['name'] for a in sets[nested]['attributes']]
        return ' | '.join('B(%s)' % enum(sets[nested], n) for n in names) or '0'

    def masks(op, mode):
        attrs = op.get(mode, {}).get('request', {}).get('attributes', [])
        op_set = op.get('attribute-set', root['name'])
        top = ' | '.join('B(%s)' % enum(root, a) for a in attrs) or '0'
        return (top, nest_mask(op_set, 'service', attrs),
                nest_mask(op_set, 'backend', attrs),
                nest_mask(op_set, 'chain', attrs), attrs)

    def shape(op, mode):
        top, svc, be, chain, attrs = masks(op, mode)
        if mode == 'do':
            # A command whose do takes nothing has no policy: 6.1's
            # genetlink then parses no attribute at all, 6.12's rejects
            # them all. Either is right.
            tol = ('FZ_ANY',) * 4 if not attrs else ('0',) * 4
        else:
            # 6.1 has one op per command: genetlink checks a dump request
            # against the do's policy, and only then the dump's own
            # (family.c). What the do takes may be refused either way.
            tol = masks(op, 'do')[:4] if 'do' in op else ('0',) * 4
        return '{ %s, %s, %s, %s, %s, %s, %s, %s }' % (top, tol[0], svc, tol[1], be, tol[2],
                                                       chain, tol[3])

    out = ['/* SPDX-License-Identifier: GPL-2.0 */',
           '/* Do not edit: written by tools/ynl/fuzz-spec-gen.py from %s. */'
           % sys.argv[1], '']
    ops = spec['operations']['list']
    for mode, table in (('do', 'fz_specs'), ('dump', 'fz_dump_specs')):
        out.append('static const struct fz_cmd_spec %s[%s_CMD_MAX + 1] = {' % (table, fam))
        for op in ops:
            if mode in op:
                out.append('\t[%s_CMD_%s] = %s,' % (fam, upper(op['name']), shape(op, mode)))
        out.append('};')
        out.append('')
    for table, test in (('fz_admin', lambda op: 'uns-admin-perm' in op.get('flags', [])),
                        ('fz_has_dump', lambda op: 'dump' in op),
                        ('fz_has_do', lambda op: 'do' in op)):
        out.append('static const bool %s[%s_CMD_MAX + 1] = {' % (table, fam))
        for op in ops:
            if test(op):
                out.append('\t[%s_CMD_%s] = true,' % (fam, upper(op['name'])))
        out.append('};')
        out.append('')
    out += kinds(spec, sets, root, enum)
    with open(sys.argv[2], 'w') as f:
        f.write('\n'.join(out))


if __name__ == '__main__':
    main()
