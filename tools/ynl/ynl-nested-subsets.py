#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give each command the nested policies its attribute set names.

The kernel's ynl-gen-c.py of Linux 6.12 renders one policy per nest and
points every command at it, even when the command's attribute set is a
subset whose nest attribute names a narrower subset (nested-attributes:
service-id), as current upstream specs (ovpn.yaml) do. This pass runs on
its output and finishes the job the newer generator does:

 - every attribute set that is a subset of a nest set becomes a policy of
   its own, holding the parent's entries for the attributes it lists;
 - each command's request policy points its nests at the subsets its
   attribute set names, so that genetlink's strict validation rejects any
   attribute a command does not take, inside nests too.

Usage: ynl-nested-subsets.py SPEC netlink-gen.c netlink-gen.h (in place).
"""

import re
import sys

import yaml


def c_name(name):
    return name.replace('-', '_')


def load(spec_path):
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    family = c_name(spec['name'])
    sets = {s['name']: s for s in spec['attribute-sets']}
    root = next(s['name'] for s in spec['attribute-sets'] if 'subset-of' not in s)
    return spec, family, sets, root


def nest_subsets(sets, root):
    """Subsets of nest sets (not of the root), in spec order."""
    return [s for s in sets.values()
            if s.get('subset-of') not in (None, root)]


def parent_entries(source, family, parent):
    """The generated entries of @parent's policy: {ATTR_ENUM: line}."""
    m = re.search(r'^const struct nla_policy %s_%s_nl_policy\[[^\]]+\] = \{\n(.*?)^\};\n'
                  % (family, c_name(parent)), source, re.M | re.S)
    if not m:
        sys.exit('ynl-nested-subsets: no generated policy for nest %s' % parent)
    entries = {}
    for line in m.group(1).splitlines():
        e = re.match(r'\t\[(\w+)\] = ', line)
        if e:
            entries[e.group(1)] = line
    return entries


def attr_enum(spec_set, attr):
    prefix = spec_set.get('name-prefix')
    return c_name(prefix + attr).upper()


def render_subset(source, family, sets, subset):
    parent = sets[subset['subset-of']]
    entries = parent_entries(source, family, parent['name'])
    names = [a['name'] for a in subset['attributes']]
    order = [a['name'] for a in parent['attributes']]
    names.sort(key=order.index)
    enums = [attr_enum(parent, n) for n in names]
    missing = [e for e in enums if e not in entries]
    if missing:
        sys.exit('ynl-nested-subsets: %s: no policy entry for %s'
                 % (subset['name'], ', '.join(missing)))
    decl = 'const struct nla_policy %s_%s_nl_policy[%s + 1]' % (
        family, c_name(subset['name']), enums[-1])
    body = '\n'.join(entries[e] for e in enums)
    return decl, '%s = {\n%s\n};\n' % (decl, body)


def retarget_ops(source, spec, family, sets, root):
    """Point each op's nests at the subsets its attribute set names."""
    for op in spec['operations']['list']:
        aset = sets[op.get('attribute-set', root)]
        if 'subset-of' not in aset:
            continue
        overrides = {a['name']: a['nested-attributes']
                     for a in aset['attributes'] if 'nested-attributes' in a}
        for mode in ('do', 'dump'):
            if mode not in op or 'request' not in op[mode]:
                continue
            marker = '/* %s_CMD_%s - %s */\n' % (family.upper(),
                                                 c_name(op['name']).upper(), mode)
            start = source.find(marker)
            if start < 0:
                sys.exit('ynl-nested-subsets: no policy for %s %s' % (op['name'], mode))
            end = source.index('};\n', start)
            block = source[start:end]
            for attr, nested in overrides.items():
                full = sets[nested]['subset-of']
                enum = attr_enum(sets[root], attr)
                block = block.replace(
                    '[%s] = NLA_POLICY_NESTED(%s_%s_nl_policy)' % (enum, family, c_name(full)),
                    '[%s] = NLA_POLICY_NESTED(%s_%s_nl_policy)' % (enum, family, c_name(nested)))
            source = source[:start] + block + source[end:]
    return source


def extern(decl):
    """An extern declaration, broken after its type past 100 columns."""
    line = 'extern %s;' % decl
    if len(line) > 100:
        line = line.replace(' nla_policy ', ' nla_policy\n\t', 1)
    return line + '\n'


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    spec, family, sets, root = load(sys.argv[1])
    with open(sys.argv[2]) as f:
        source = f.read()
    with open(sys.argv[3]) as f:
        header = f.read()

    rendered = [render_subset(source, family, sets, s) for s in nest_subsets(sets, root)]
    # After the common nested types, before the first command's policy.
    anchor = source.index('/* %s_CMD_' % family.upper())
    source = (source[:anchor] + '/* Per-command subsets of the nested types */\n' +
              '\n'.join(r[1] for r in rendered) + '\n' + source[anchor:])
    source = retarget_ops(source, spec, family, sets, root)

    anchor = header.index('/* Ops table for')
    header = (header[:anchor] + '/* Per-command subsets of the nested types */\n' +
              ''.join(extern(r[0]) for r in rendered) + '\n' + header[anchor:])

    with open(sys.argv[2], 'w') as f:
        f.write(source)
    with open(sys.argv[3], 'w') as f:
        f.write(header)


if __name__ == '__main__':
    main()
