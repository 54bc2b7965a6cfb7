//! SKELETON: pcap writer.
