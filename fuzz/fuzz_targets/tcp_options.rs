//! Any byte string through the TCP option decoder: no panic, limits respected.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_pcap::decode_tcp_options;

fuzz_target!(|data: &[u8]| {
    let d = decode_tcp_options(data);
    assert!(d.options.sack.len() <= tcplab_tcp::segment::MAX_SACK_BLOCKS);
    if let Some(ws) = d.options.window_scale {
        assert!(ws <= 14);
    }
});
