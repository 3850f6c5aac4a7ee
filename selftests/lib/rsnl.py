#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rsnl.py [--dump] COMMAND ATTR...     one request
   rsnl.py -                           one request per stdin line

A raw generic netlink client for the ringsteer family, so the tests can send
what ringctl refuses to build (port 0, wrong lengths, unknown attributes,
missing required ones) and see the kernel's own answer. It prints one line
per request:

  OK                          the kernel acked it
  ERRNO message [@ATTR]       rejected: errno name, the extack message
                              ("(missing attribute N)" for a bare
                              NL_SET_ERR_ATTR_MISS, "-" if none) and, if
                              the kernel pointed at an attribute
                              (NL_SET_BAD_ATTR), its path

and exits 0 if every request was acked, 1 otherwise.

COMMAND is a RINGSTEER_CMD_* suffix (SERVICE_NEW ...) or a number. Each ATTR
is PATH=TYPE:VALUE, PATH a dotted attribute path (service.port, backend.9;
names as in kmod/uapi/ringsteer.h, or numbers), nests made on the way with
NLA_F_NESTED. TYPE: u8 u16 u32 u64 be16 be32 (numbers), ip (an IPv4 or IPv6
address, 4 or 16 bytes), hex (raw bytes), str (NUL-terminated), flag (empty).
Shorthands:
  svc=ADDR:PORT/PROTO       service.family/addr/port/proto ([v6]:port)
  be=ADDR:PORT              backend.family/addr/port
  flow=ADDR:PORT            flow.addr/port
"""

import errno
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_ACK_TLVS = 0x200
NLA_F_NESTED = 0x8000
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_MISS_TYPE = 5
NLMSGERR_ATTR_MISS_NEST = 6

# Commands and attributes come from the spec the kernel's policies are
# generated from: nothing here to keep in step by hand.
# A copy of this script finds a copy of the spec beside it (a test that
# runs it as another user copies both where that user can read them).
_HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = next((p for p in (os.path.join(_HERE, "ringsteer.yaml"),
                         os.path.join(_HERE, "..", "..", "kmod", "uapi",
                                      "ringsteer.yaml"))
             if os.path.exists(p)), None)


def load_spec(path=SPEC):
    """CMDS (index = command number), TOP and NESTS (name -> number)."""
    import yaml

    if path is None:
        sys.exit("rsnl.py: kmod/uapi/ringsteer.yaml not found beside it or in its tree")
    with open(path) as f:
        spec = yaml.safe_load(f)
    cmds = ["UNSPEC"] + [op["name"].replace("-", "_").upper()
                         for op in spec["operations"]["list"]]
    sets = {s["name"]: s for s in spec["attribute-sets"] if "subset-of" not in s}

    def numbers(aset):
        # Both spellings: the spec's (ring-bytes) and C's (ring_bytes).
        out = {}
        for i, a in enumerate(aset["attributes"], start=aset.get("value-start", 1)):
            out[a["name"]] = out[a["name"].replace("-", "_")] = i
        return out

    top_set = sets[spec["name"]]
    nests = {a["name"]: numbers(sets[a["nested-attributes"]])
             for a in top_set["attributes"] if a.get("type") == "nest"}
    return cmds, numbers(top_set), nests


CMDS, TOP, NESTS = load_spec()
PROTOS = {"tcp": 6, "udp": 17}


def attr_num(table, name):
    if name.isdigit():
        return int(name)
    return table[name]


def encode(typ, val):
    if typ in ("u8", "u16", "u32", "u64"):
        return struct.pack({"u8": "B", "u16": "H", "u32": "I", "u64": "Q"}[typ],
                           int(val, 0))
    if typ == "be16":
        return struct.pack(">H", int(val, 0))
    if typ == "be32":
        return struct.pack(">I", int(val, 0))
    if typ == "ip":
        fam = socket.AF_INET6 if ":" in val else socket.AF_INET
        return socket.inet_pton(fam, val)
    if typ == "hex":
        return bytes.fromhex(val)
    if typ == "str":
        return val.encode() + b"\0"
    if typ == "flag":
        return b""
    raise ValueError("unknown type " + typ)


def split_hostport(s):
    if s.startswith("["):
        host, port = s[1:].split("]:")
    else:
        host, port = s.rsplit(":", 1)
    return host, port


def expand(arg):
    """Shorthands to PATH=TYPE:VALUE items."""
    key, _, val = arg.partition("=")
    if key in ("svc", "be", "flow"):
        proto = None
        if key == "svc":
            val, _, proto = val.partition("/")
        host, port = split_hostport(val)
        fam = "10" if ":" in host else "2"
        nest = {"svc": "service", "be": "backend", "flow": "flow"}[key]
        out = []
        if key != "flow":
            out.append((nest + ".family", "u16", fam))
        out += [(nest + ".addr", "ip", host), (nest + ".port", "be16", port)]
        if proto:
            out.append((nest + ".proto", "u8", str(PROTOS.get(proto, proto))))
        return out
    typ, _, v = val.partition(":")
    return [(key, typ, v)]


class Tree:
    """Attributes in insertion order; nests keep their own order."""

    def __init__(self):
        self.items = []         # (num, path, payload bytes | Tree)

    def child(self, num, path):
        for n, p, v in self.items:
            if n == num and isinstance(v, Tree):
                return v
        t = Tree()
        self.items.append((num, path, t))
        return t

    def pack(self, base, where):
        """Bytes of these attributes starting at offset base; records the
        offset of each attribute in where (offset -> path)."""
        out = b""
        for num, path, v in self.items:
            off = base + len(out)
            where[off] = path
            if isinstance(v, Tree):
                body = v.pack(off + 4, where)
                num |= NLA_F_NESTED
            else:
                body = v
            out += struct.pack("HH", 4 + len(body), num) + body
            out += b"\0" * (-len(out) % 4)
        return out


def build(args):
    tree = Tree()
    for arg in args:
        for path, typ, val in expand(arg):
            parts = path.split(".")
            node, table = tree, TOP
            for i, name in enumerate(parts[:-1]):
                node = node.child(attr_num(table, name), ".".join(parts[:i + 1]))
                table = NESTS.get(name, {})
            node.items.append((attr_num(table, parts[-1]), path,
                               encode(typ, val)))
    return tree


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0
        self.family = None

    def request(self, ftype, cmd, version, tree, flags=NLM_F_ACK):
        """Returns (error, extack msg, bad attr path, replies)."""
        self.seq += 1
        where = {}
        payload = tree.pack(16 + 4, where)
        msg = struct.pack("=LHHLL", 16 + 4 + len(payload), ftype,
                          NLM_F_REQUEST | flags, self.seq, 0)
        msg += struct.pack("BBH", cmd, version, 0) + payload
        self.sock.send(msg)
        replies = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, typ, fl, seq, _ = struct.unpack_from("=LHHLL", data, off)
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if typ not in (NLMSG_ERROR, NLMSG_DONE):
                    replies.append(body)
                    continue
                # A dump that fails after it started ends with an
                # NLMSG_DONE carrying the errno, then the TLVs.
                err = -struct.unpack_from("=i", body)[0] if body else 0
                msgtext, bad, miss, nest = None, None, None, None
                if fl & NLM_F_ACK_TLVS:
                    # Capped: the error, then the 16-byte request header.
                    tl = body[4 + (16 if typ == NLMSG_ERROR else 0):]
                    while len(tl) >= 4:
                        alen, atype = struct.unpack_from("HH", tl)
                        val = tl[4:alen]
                        if atype == NLMSGERR_ATTR_MSG:
                            msgtext = val.rstrip(b"\0").decode()
                        elif atype == NLMSGERR_ATTR_OFFS:
                            o = struct.unpack_from("I", val)[0]
                            bad = where.get(o, "offset %d" % o)
                        elif atype == NLMSGERR_ATTR_MISS_TYPE:
                            miss = struct.unpack_from("I", val)[0]
                        elif atype == NLMSGERR_ATTR_MISS_NEST:
                            o = struct.unpack_from("I", val)[0]
                            nest = where.get(o, "offset %d" % o)
                        tl = tl[(alen + 3) & ~3:]
                    # GENL_REQ_ATTR_CHECK reports a missing attribute
                    # without a text message; that is an explanation too.
                    if msgtext is None and miss is not None:
                        msgtext = "(missing attribute %d%s)" % (
                            miss, " in " + nest if nest else "")
                if err or typ == NLMSG_DONE or not (flags & NLM_F_DUMP):
                    return err, msgtext, bad, replies

    def resolve(self):
        t = Tree()
        t.items.append((CTRL_ATTR_FAMILY_NAME, "name", b"ringsteer\0"))
        err, msg, _, replies = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                            1, t)
        if err or not replies:
            sys.stderr.write("rsnl: family ringsteer not found: %s\n" %
                             os.strerror(err))
            sys.exit(2)
        a = replies[0][4:]
        while len(a) >= 4:
            alen, atype = struct.unpack_from("HH", a)
            if atype == CTRL_ATTR_FAMILY_ID:
                self.family = struct.unpack_from("H", a, 4)[0]
            a = a[(alen + 3) & ~3:]

    def run(self, argv):
        dump = False
        if argv and argv[0] == "--dump":
            dump, argv = True, argv[1:]
        cmd = argv[0]
        cmdnum = int(cmd) if cmd.isdigit() else CMDS.index(cmd)
        tree = build(argv[1:])
        flags = NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        err, msg, bad, _ = self.request(self.family, cmdnum, 1, tree, flags)
        if not err:
            return "OK"
        line = "%s %s" % (errno.errorcode.get(err, str(err)), msg or "-")
        if bad:
            line += " @" + bad
        return line


def main():
    g = Genl()
    g.resolve()
    if sys.argv[1:] == ["-"]:
        lines = [l.split() for l in sys.stdin if l.strip()]
    else:
        lines = [sys.argv[1:]]
    ok = True
    for argv in lines:
        res = g.run(argv)
        ok &= res == "OK"
        print(res, flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
