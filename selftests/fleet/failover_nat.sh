#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# failover.sh with ringsteer's NAT mode on every LB (FLEET_LB=nat):
# what NAT loses when an LB fails or returns (see failover.sh and
# lib/fleet.sh, lb_nat_*).
#
#  fl-cli ---- fl-rtr ==ECMP== fl-lb1..3 (ringsteer NAT + masquerade)
#                      ------  fl-be1..3

export FLEET_LB=nat
exec bash "$(dirname "$0")/failover.sh"
