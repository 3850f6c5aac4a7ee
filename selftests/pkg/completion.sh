#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion of ringctl, driven the way bash drives it (COMP_WORDS,
# COMP_CWORD, the function `complete` registered) with bash-completion's
# helpers loaded: completions for a few prefixes, then agreement with the
# COMMANDS section of ringctl(8): every command and keyword it documents is
# completed, and every command completed is documented.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. selftests/pkg/lib.sh

COMPLETION=${COMPLETION:-dist/bash-completion/ringctl}
# The settings are completed from ringctl's usage: the one built here.
PATH=$PWD/userspace:$PATH
[ -x userspace/ringctl ] || die "build ringctl first (make ringctl)"
MANPAGE=${MANPAGE:-userspace/ringctl.8}

# shellcheck disable=SC1091
. /usr/share/bash-completion/bash_completion || die "bash-completion is not installed"
# shellcheck disable=SC1090
. "$COMPLETION" || die "sourcing $COMPLETION"
func=$(complete -p ringctl 2>/dev/null | sed -n 's/.*-F \([^ ]*\) ringctl$/\1/p')
[ -n "$func" ] || die "$COMPLETION registers no completion function for ringctl"

# complete LINE: the candidates for the last word of LINE (empty after a
# trailing blank), one a line, sorted.
complete_line()
{
	local line=$1
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=('')
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$func" ringctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort -u | sed '/^$/d'
}

# expect LINE WORD...: every WORD is among the candidates.
expect()
{
	local line=$1 got w
	shift
	got=$(complete_line "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" ||
			die "'$line<TAB>' does not offer '$w' (offers: $(tr '\n' ' ' <<<"$got"))"
	done
	pass "'$line<TAB>' offers $*"
}

# expect_only LINE WORD...: exactly the WORDs (none: no candidate).
expect_only()
{
	local line=$1 got want
	shift
	got=$(complete_line "$line")
	want=$(printf '%s\n' "$@" | sort -u | sed '/^$/d')
	[ "$got" = "$want" ] ||
		die "'$line<TAB>' offers '$(tr '\n' ' ' <<<"$got")', want '$*'"
	pass "'$line<TAB>' offers exactly '$*'"
}

expect_only 'ringctl ba' backend backend-mode
expect_only 'ringctl backend-mode ' show set off help
expect_only 'ringctl im' import
expect 'ringctl ' service backend show lookup key flush monitor save restore simulate version help
expect_only 'ringctl backend ' add set del drain activate help
expect_only 'ringctl backend d' del drain
expect 'ringctl -' -j -h -V
expect 'ringctl -j ' show lookup
# The settings come from ringctl's usage: a new one is offered too.
expect 'ringctl service add 1.2.3.4:80 ' proto vnodes hash on-down forward encap port placement capacity
# Addresses are one word: the colons of [v6]:port do not start a new one.
expect_only 'ringctl service add [2001:db8::10]:53 proto ' tcp udp
expect 'ringctl service add 1.2.3.4:80 proto udp ' vnodes hash on-down forward encap port placement
expect_only 'ringctl service add 1.2.3.4:80 forward ' nat tunnel
expect_only 'ringctl service add 1.2.3.4:80 forward tunnel encap ' ipip gue
expect_only 'ringctl service add 1.2.3.4:80 forward tunnel on-down ' keep reset
expect_only 'ringctl service add 1.2.3.4:80 hash ' flow source
expect_only 'ringctl service del 1.2.3.4:80 ' proto keep-flows
# No keyword before the addresses it follows.
expect_only 'ringctl service add '
expect_only 'ringctl backend add 1.2.3.4:80 '
expect 'ringctl backend add 1.2.3.4:80 10.0.0.1:80 ' proto weight state on-down slots
expect_only 'ringctl backend set 1.2.3.4:80 10.0.0.1:80 on-down ' service keep reset
expect_only 'ringctl backend set 1.2.3.4:80 10.0.0.1:80 state ' active draining
expect_only 'ringctl backend set 1.2.3.4:80 10.0.0.1:80 weight '
expect_only 'ringctl key ' show set help
expect_only 'ringctl key set ' random
expect 'ringctl lookup 1.2.3.4:80 ' batch proto -j
expect 'ringctl lookup 1.2.3.4:80 batch ' - README.md
expect 'ringctl restore ' - README.md
expect_only 'ringctl restore x.conf ' keep-flows
expect_only 'ringctl flush ' keep-flows
expect_only 'ringctl flush -' -h --help
expect_only 'ringctl monitor ' count -j
expect 'ringctl simulate ' backends backend slots file service proto vnodes key hash placement capacity draining add remove drain weight shares sweep need-vnodes flows samples compare -j
expect_only 'ringctl simulate backends 10 placement ' ring slots
# Repeatable keywords stay, others go once used.
expect 'ringctl simulate backend 10.0.0.1:80 vnodes 64 ' backend backends
complete_line 'ringctl simulate backend 10.0.0.1:80 vnodes 64 ' | grep -qx vnodes &&
	die "vnodes offered twice"
pass "used keywords are not offered again"
expect_only 'ringctl version '
expect_only 'ringctl nosuch '

# The COMMANDS section: each entry's command words, then its bold keywords.
# "service add VIP:PORT [proto P] [keep-flows]" -> "service add|proto keep-flows".
man_commands()
{
	awk '
		/^\.SH / { in_cmds = ($2 == "COMMANDS"); next }
		in_cmds && /^\.TP/ { getline; if ($1 == ".B" || $1 == ".BI") print }
	' "$MANPAGE" | while IFS= read -r l; do
		local words="" kws w rest=()
		l=${l#.B* }
		l=${l//\\-/-}
		# The command words are the leading plain lowercase words.
		read -ra rest <<<"$(sed 's/\\f[A-Z]//g; s/[,"]/ /g' <<<"$l")"
		for w in "${rest[@]}"; do
			[[ $w =~ ^[a-z][a-z-]*$ ]] || break
			words+=${words:+ }$w
		done
		# Keywords: bold words after the command words.
		kws=$(grep -oE '\\fB-?[a-z][a-z0-9-]*' <<<"${l#*\\f}" | sed 's/^\\fB//' | tr '\n' ' ')
		echo "$words|$kws"
	done
}

documented=$(man_commands)
[ "$(wc -l <<<"$documented")" -ge 15 ] || die "found only $(wc -l <<<"$documented") commands in $MANPAGE"
while IFS='|' read -r words kws; do
	# Each command word is offered after the ones before it.
	prefix="ringctl "
	for w in $words; do
		complete_line "$prefix" | grep -qxF -- "$w" ||
			die "ringctl.8 documents '$words' but '$prefix<TAB>' does not offer '$w'"
		prefix+="$w "
	done
	# Each keyword is in the grammar of the command or its family.
	# shellcheck disable=SC2154 # set by the completion file
	grammar=$(for c in "${!_ringctl_cmds[@]}"; do
		[[ $c == "$words" || $c == "$words "* ]] && echo "$c $(_ringctl_grammar "$c" ringctl)"
	done | tr ' =|<>[]+' '\n')
	for w in $kws; do
		grep -qxF -- "$w" <<<"$grammar" ||
			die "ringctl.8 documents '$w' for '$words', the completion does not"
	done
	pass "documented: $words${kws:+ (${kws% })}"
done <<<"$documented"

for w in $(complete_line 'ringctl '); do
	grep -q "^${w}[ |]" <<<"$documented" ||
		die "the completion offers '$w', ringctl.8 COMMANDS does not document it"
done
pass "every completed command is documented"
