#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fleet/failover.sh with ringsteer's tunnel mode on every LB
# (FLEET_LB=tunnel; FLEET_ENCAP ipip, the default, or gue): like IPVS mh,
# an LB's failure or return may reset no connection (see failover.sh and
# lib/fleet.sh, lb_tunnel_*).
#
#  fl-cli ---- fl-rtr ==ECMP== fl-lb1..3 (ringsteer, forward tunnel)
#                      ------  fl-be1..4 (ringsteer-backend up)

export FLEET_LB=tunnel
exec bash "$(dirname "$0")/failover.sh"
