#!/bin/sh
# Installs what the real-kernel harness (validation/linux/run.py) needs on a Debian machine.
# Needs root. Not part of the README's test command: the harness builds network namespaces.
set -eu
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y iproute2 ethtool tcpdump bpftrace
