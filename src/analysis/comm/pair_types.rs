//! What the message pairing ([`super::pairs`]) reports: a pair, an end
//! left unmatched, the sums per route and the summary.

use crate::analysis::filter::FilterNames;
use crate::formats::blprof::commdata::{AFTER_CALL, CommRecord, func_name, is_recv, is_send};

/// One side of a message.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MsgEnd {
    pub proc: usize,
    pub peer: i32,
    pub tag: i32,
    pub size: i32,
    pub time: f64,
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// A matched message.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pair {
    /// The sending process.
    pub from: usize,
    /// The receiving process.
    pub to: usize,
    /// The message tag.
    pub tag: i32,
    /// Bytes sent.
    pub size: i32,
    /// When the send was entered, seconds on the sender's clock.
    pub send_time: f64,
    /// When the receive was entered, seconds on the receiver's clock.
    pub recv_time: f64,
    /// recv_time − send_time (two different clocks: see the module docs).
    pub latency: f64,
    /// When the receive completed: the exit of the wait that returned its
    /// status (nonblocking), or `recv_time` (blocking); `None` when no wait
    /// was found.
    pub completed_time: Option<f64>,
    /// completed_time − send_time.
    pub latency_to_completion: Option<f64>,
    /// When the call that completed the receive was entered (the wait's,
    /// or a blocking receive's first record) and its MPI type: where the
    /// receiver started to wait (wait states, not in the outputs).
    #[serde(skip)]
    pub wait_entry: Option<f64>,
    /// The MPI call type of that call (the comm profile's number).
    #[serde(skip)]
    pub wait_kind: i32,
}

/// Messages between one sender and one receiver.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Route {
    pub from: usize,
    pub to: usize,
    pub messages: u64,
    pub bytes: u64,
    pub latency_mean: f64,
    pub latency_max: f64,
    /// Messages whose receive's completion is known, and the mean and
    /// largest latency to it.
    pub completed: u64,
    pub completion_latency_mean: Option<f64>,
    pub completion_latency_max: Option<f64>,
}

/// Everything but the pairs themselves, which are streamed to the caller.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PairingSummary {
    /// Pairs reported (those touching the selected processes).
    pub paired: u64,
    /// Per sender and receiver, in that order.
    pub routes: Vec<Route>,
    /// Sends no receive was found for.
    pub unmatched_sends: Vec<MsgEnd>,
    /// Receives no send was found for.
    pub unmatched_recvs: Vec<MsgEnd>,
    /// With `--align-clocks`: the process whose clock all times are on
    /// (docs/COMM.md); absent: each process's own clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks_aligned_to: Option<usize>,
    /// The region filter applied (set by the caller; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_filter: Option<FilterNames>,
}

/// End `r` of process `proc` as listed unmatched.
pub(super) fn end(proc: usize, r: &CommRecord) -> MsgEnd {
    MsgEnd {
        proc,
        peer: r.peer,
        tag: r.tag,
        size: r.size,
        time: r.time,
        kind: func_name(r.kind).unwrap_or("?"),
    }
}

/// A send the pairing takes: its record with the byte count.
pub(super) fn is_paired_send(r: &CommRecord) -> bool {
    is_send(r.kind) && r.size != AFTER_CALL
}

/// A receive the pairing takes: its record with the byte count.
pub(super) fn is_paired_recv(r: &CommRecord) -> bool {
    is_recv(r.kind) && r.size >= 0
}
