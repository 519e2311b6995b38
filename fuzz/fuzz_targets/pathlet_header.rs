//! Any bytes through the Pathlet / Pathlet Echo header decoder (seed 004 §III-A, Fig. 5, as an
//! IPv4 option: `tcplab_tcp::startup::pathlet_header`), the decoder a capture reader uses for
//! option types 0x9E and 0xDE.
//!
//! Invariants: no panic; a decoded header has at most `MAX_SLOTS` slots, a wire length of
//! 8 + 4·Slots equal to the length byte, no discovery IDs past its slots; re-encoding it gives
//! the input's first `len` bytes with the reserved byte zeroed; the discovered routers are a
//! prefix of the slots; `record_router` and `mark_congested` keep those invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tcplab_tcp::startup::pathlet_header::{PathletHeader, EMPTY_ID, MAX_SLOTS};

fuzz_target!(|data: &[u8]| {
    let Ok(mut h) = PathletHeader::decode(data) else { return };
    let len = usize::from(h.wire_len());
    assert!(usize::from(h.slots) <= MAX_SLOTS);
    assert_eq!(Some(&h.wire_len()), data.get(1));
    assert!(h.ids[usize::from(h.slots)..].iter().all(|&id| id == EMPTY_ID));
    let mut out = [0u8; 40];
    assert_eq!(h.encode(&mut out), len);
    let mut want = data[..len].to_vec();
    want[3] = 0; // Rsvd: ignored on input, sent as zero
    assert_eq!(&out[..len], &want[..]);
    assert_eq!(PathletHeader::decode(&out[..len]), Ok(h));

    let found = h.discovered().len();
    assert!(found <= usize::from(h.slots));
    assert!(h.ids[..found].iter().all(|&id| id != EMPTY_ID));
    assert_eq!(h.is_full(), h.slots > 0 && found == usize::from(h.slots));
    // A router with a non-zero ID takes the first free slot, if there is one.
    let wrote = h.record_router(0x0102_0304);
    assert_eq!(wrote, found < usize::from(h.slots));
    if wrote {
        // Slots after a hole may already hold IDs: they join the discovered prefix.
        assert_eq!(h.ids[found], 0x0102_0304);
        assert!(h.discovered().len() > found);
    } else {
        assert_eq!(h.discovered().len(), found);
    }
    let before = h.congested;
    assert_eq!(h.mark_congested(7), before == EMPTY_ID);
    assert!(h.congested != EMPTY_ID);
});
