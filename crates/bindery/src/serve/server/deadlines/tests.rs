use std::time::Duration;

use super::{Deadlines, Expired, due};
use crate::serve::server::activity::Activity;
use crate::serve::server::clock::Clock;
use crate::serve::server::in_flight::{HTTP2_FRAME, InFlight};

const LIMITS: Deadlines = Deadlines {
    first_request: Duration::from_secs(10),
    idle: Duration::from_secs(30),
    upgraded: Duration::from_secs(300),
};

/// Moves `clock` on by at least `millis`.
fn wait(clock: &Clock, millis: u64) {
    std::thread::sleep(Duration::from_millis(millis));
    clock.advance();
}

#[test]
fn each_phase_has_its_deadline() {
    let activity = Activity::new(&Clock::new());
    assert_eq!(
        due(&activity, &LIMITS),
        (LIMITS.first_request, Expired::FirstRequest)
    );
    let request = InFlight::start(&activity, false, false);
    assert_eq!(due(&activity, &LIMITS).1, Expired::Stalled);
    drop(request);
    assert_eq!(
        due(&activity, &LIMITS).1,
        Expired::Stalled,
        "in flight until hyper has written the answer"
    );
    activity.flushed();
    assert_eq!(due(&activity, &LIMITS).1, Expired::Idle);
    activity.bytes_read();
    assert_eq!(
        due(&activity, &LIMITS).1,
        Expired::Header,
        "a next HTTP/1 head has the header deadline"
    );
    assert_eq!(activity.requests(), 1);
}

#[test]
fn a_head_pipelined_behind_a_request_has_the_header_deadline_from_its_end() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let request = InFlight::start(&activity, false, false);
    // The rest of a second head, read while the first answer is written.
    activity.bytes_read();
    wait(&clock, 20);
    drop(request);
    activity.flushed();
    let (at, reason) = due(&activity, &LIMITS);
    assert_eq!(reason, Expired::Header, "not the idle deadline");
    assert!(
        at >= LIMITS.first_request + Duration::from_millis(20),
        "{at:?}"
    );
    // A request with a body reads its body meanwhile: that is no head.
    let upload = InFlight::start(&activity, false, true);
    activity.bytes_read();
    drop(upload);
    activity.flushed();
    assert_eq!(due(&activity, &LIMITS).1, Expired::Idle);
}

#[test]
fn an_http2_header_block_left_open_has_the_header_deadline_beside_streams_in_flight() {
    let activity = Activity::new(&Clock::new());
    let _held = InFlight::start(&activity, true, false);
    assert_eq!(due(&activity, &LIMITS).1, Expired::Stalled);
    activity.header_block_opened();
    assert_eq!(
        due(&activity, &LIMITS),
        (LIMITS.first_request, Expired::Header)
    );
    activity.header_block_closed();
    assert_eq!(due(&activity, &LIMITS).1, Expired::Stalled);
}

#[test]
fn http2_streams_are_judged_by_their_own_progress() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let held = InFlight::start(&activity, true, false);
    wait(&clock, 20);
    // Another stream starting and ending, and bytes moving, renew nothing for `held`.
    let mut other = InFlight::start(&activity, true, false);
    other.finished();
    drop(other);
    activity.bytes_read();
    activity.bytes_written();
    let (at, reason) = due(&activity, &LIMITS);
    assert_eq!(reason, Expired::Stalled);
    assert_eq!(at, LIMITS.idle, "from the held stream's start");
    let mut held = held;
    // Taking frames proves nothing until a frame is known to have left: the third proves the first.
    held.took(HTTP2_FRAME);
    held.took(HTTP2_FRAME);
    assert_eq!(due(&activity, &LIMITS).0, LIMITS.idle);
    held.took(HTTP2_FRAME);
    assert!(due(&activity, &LIMITS).0 > LIMITS.idle);
}

#[test]
fn small_http2_frames_prove_progress_only_by_the_frame_size_they_add_up_to() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let mut held = InFlight::start(&activity, true, false);
    wait(&clock, 20);
    // Multipart parts of 400 bytes: 100 of them prove under 64 KiB.
    for _ in 0..100 {
        held.took(400);
    }
    assert_eq!(due(&activity, &LIMITS).0, LIMITS.idle);
    for _ in 0..100 {
        held.took(400);
    }
    assert!(due(&activity, &LIMITS).0 > LIMITS.idle);
}

#[test]
fn a_stream_reset_and_replaced_is_no_progress() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let first = InFlight::start(&activity, true, false);
    wait(&clock, 30);
    let _second = InFlight::start(&activity, true, false);
    drop(first); // reset before its end
    assert_eq!(
        due(&activity, &LIMITS),
        (LIMITS.idle, Expired::Stalled),
        "the first stream's stall carries on"
    );
}

#[test]
fn a_stream_reset_alone_leaves_the_connection_idle() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let first = InFlight::start(&activity, true, false);
    wait(&clock, 30);
    drop(first);
    let (at, reason) = due(&activity, &LIMITS);
    assert_eq!(reason, Expired::Idle);
    assert!(at > LIMITS.idle);
}

#[test]
fn the_first_request_in_flight_is_kept_inline_and_the_others_in_the_list() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    let mut first = InFlight::start(&activity, true, false);
    let mut second = InFlight::start(&activity, true, false);
    assert_eq!(activity.lock().len(), 1, "only the second is in the list");
    wait(&clock, 5);
    for _ in 0..3 {
        first.took(HTTP2_FRAME);
    }
    // The second, still at its start, is the oldest.
    assert_eq!(due(&activity, &LIMITS).0, LIMITS.idle);
    second.finished();
    drop(second);
    assert!(due(&activity, &LIMITS).0 > LIMITS.idle);
    first.finished();
    drop(first);
    assert!(activity.is_idle());
    let third = InFlight::start(&activity, false, false);
    assert!(activity.lock().is_empty(), "the inline slot is free again");
    drop(third);
}

#[test]
fn an_http1_answer_ends_when_written_or_when_the_next_request_starts() {
    let activity = Activity::new(&Clock::new());
    let first = InFlight::start(&activity, false, false);
    assert!(first.ends_at_flush());
    drop(first);
    assert!(!activity.is_idle(), "hyper still holds its bytes");
    activity.flushed();
    assert!(activity.is_idle());
    activity.flushed();
    assert!(
        activity.is_idle(),
        "a flush with nothing pending changes nothing"
    );
    drop(InFlight::start(&activity, false, false));
    // Pipelined: the next head came before the last answer was written.
    let next = InFlight::start(&activity, false, false);
    assert!(next.ends_at_flush(), "the inline slot was freed for it");
    assert!(activity.lock().is_empty());
    drop(next);
    activity.flushed();
    assert!(activity.is_idle());
    assert_eq!(activity.requests(), 3);
}

#[test]
fn an_upgraded_connection_is_busy_and_timed_by_its_bytes() {
    let clock = Clock::new();
    let activity = Activity::new(&clock);
    drop(InFlight::start(&activity, false, false));
    activity.flushed();
    activity.set_upgraded();
    assert!(!activity.is_idle());
    wait(&clock, 20);
    let (at, reason) = due(&activity, &LIMITS);
    assert_eq!((at, reason), (LIMITS.upgraded, Expired::Idle));
    activity.bytes_read();
    assert!(due(&activity, &LIMITS).0 > LIMITS.upgraded);
}

#[test]
fn huge_limits_saturate_instead_of_overflowing() {
    let activity = Activity::new(&Clock::new());
    let limits = Deadlines {
        first_request: Duration::MAX,
        idle: Duration::MAX,
        upgraded: Duration::MAX,
    };
    drop(InFlight::start(&activity, false, false));
    activity.flushed();
    activity.bytes_read();
    assert_eq!(due(&activity, &limits).0, Duration::MAX);
}
