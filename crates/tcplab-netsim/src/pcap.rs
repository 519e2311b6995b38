//! pcap writer (in progress).
