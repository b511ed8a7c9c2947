//! Scenes injected after the ring messages of each comm block, one wait
//! state each, so that tests can check the wait-state definitions against
//! a known truth (`synth blprof --late-receiver --late-broadcast
//! --early-reduce --wrong-order`). Each scene takes one slot of
//! [`Scenes::slot`] seconds of true time; a process that plays no part
//! writes nothing in it. With `n` processes, `L` = P's left neighbour
//! (P − 1), `R` = its right one (P + 1), all on the true clock:
//!
//! ```text
//! late receiver P:S   L  Send 1 MiB ...(waits S)...|  Isend, Wait (waits S − 2 µs)|  Send 64 B (eager, 10 µs)
//!                     P        S later: Recv       S later: Recv                   S later: Recv
//! late broadcast P:S  the processes of P's parity (a sub-communicator) enter a Bcast rooted at P
//!                     at 0–9 µs, its highest other at S + 15 µs; P enters at S: each entered
//!                     before P waits S − its own entry (waiting for the last would differ)
//! early reduce P:S    P's parity: root = its lowest process but P enters a Gather at 0, the
//!                     others at 0–9 µs, P at S: the root waits S
//! wrong order P:S     R sends P 64 B at 0, L sends P 64 B at S; P receives from L first
//!                     (entered at 2 µs: waits S − 2 µs, while R's message waits), then from R
//! ```

use super::blprof_waits::Rec;

/// Network latency of a message on the true clock.
const LATENCY: f64 = 3e-6;
/// Time between two records of one call.
const STEP: f64 = 1e-7;
/// A large (rendezvous) message's transfer.
const TRANSFER: f64 = 2e-5;
/// An eager send's time in its call (copying to a buffer).
const EAGER: f64 = 1e-5;
/// How long after the root the broadcast's straggler enters.
const STRAGGLE: f64 = 1.5e-5;
const LARGE: i32 = 1 << 20;
const SMALL: i32 = 64;

/// The scenes to play: (process, seconds) each.
#[derive(Debug, Clone, Default)]
pub struct Scenes {
    /// P receives every message S late from its left neighbour.
    pub late_receiver: Option<(u64, f64)>,
    /// P, root of a Bcast on its parity's processes, enters it S late.
    pub late_broadcast: Option<(u64, f64)>,
    /// P, a non-root of a Gather on its parity's processes, enters it S late.
    pub early_reduce: Option<(u64, f64)>,
    /// P's left neighbour sends S late, after its right one sent.
    pub wrong_order: Option<(u64, f64)>,
}

/// What the scenes make the processes wait, per comm block.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ScenesTruth {
    /// `sender` waits for `receiver` in a blocking `Send` and in the `Wait`
    /// of an `Isend`; its eager `Send` does not wait.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_receiver: Option<LateReceiverTruth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_broadcast: Option<CollectiveTruth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub early_reduce: Option<CollectiveTruth>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrong_order: Option<WrongOrderTruth>,
}

/// Late receivers of one block.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LateReceiverTruth {
    pub sender: u64,
    pub receiver: u64,
    /// Seconds the blocking `Send` waits.
    pub blocking_send: f64,
    /// Seconds the `Wait` of the `Isend` waits.
    pub isend_wait: f64,
}

/// A rooted collective on a sub-communicator, per block.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CollectiveTruth {
    /// The processes calling it (P's parity).
    pub group: Vec<u64>,
    pub root: u64,
    /// The late process.
    pub late: u64,
    /// Seconds waited per process that waits: (process, seconds).
    pub waits: Vec<(u64, f64)>,
}

/// A late sender in the wrong order, per block.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WrongOrderTruth {
    pub receiver: u64,
    /// The late sender, and the one whose earlier message was received after.
    pub late_sender: u64,
    pub earlier_sender: u64,
    pub wait: f64,
}

/// Schedule jitter of process `p`'s entry into a collective (0–9 µs).
fn entry_jitter(p: u64, b: u64) -> f64 {
    1e-6 * ((p * 7 + b * 3) % 10) as f64
}

impl Scenes {
    fn all(&self) -> [Option<(u64, f64)>; 4] {
        [
            self.late_receiver,
            self.late_broadcast,
            self.early_reduce,
            self.wrong_order,
        ]
    }

    /// Seconds of true time one scene takes.
    pub fn slot(&self) -> f64 {
        let d = self
            .all()
            .iter()
            .flatten()
            .map(|x| x.1.max(0.0))
            .fold(0.0, f64::max);
        1e-4 + 4.0 * d
    }

    /// Seconds all scenes of a block take.
    pub fn span(&self) -> f64 {
        self.all().iter().flatten().count() as f64 * self.slot()
    }

    /// The scenes that can play with `n` processes (three at least, P
    /// among them): (index of the slot, process, delay).
    fn playing(&self, n: u64) -> impl Iterator<Item = (usize, usize, u64, f64)> + '_ {
        self.all()
            .into_iter()
            .enumerate()
            .filter_map(|(i, x)| x.map(|(p, d)| (i, p, d.max(0.0))))
            .enumerate()
            .filter(move |&(_, (_, p, _))| n >= 3 && p < n)
            .map(|(slot, (i, p, d))| (slot, i, p, d))
    }

    /// Process `p`'s records of the scenes in block `b`, starting at `t0`
    /// (true clock), in time order.
    pub fn records(&self, n: u64, p: u64, b: u64, t0: f64) -> Vec<Rec> {
        let mut recs = Vec::new();
        for (slot, scene, who, d) in self.playing(n) {
            let t = t0 + slot as f64 * self.slot();
            match scene {
                0 => late_receiver(n, p, who, d, t, &mut recs),
                1 => late_broadcast(n, p, who, d, t, b, &mut recs),
                2 => early_reduce(n, p, who, d, t, b, &mut recs),
                _ => wrong_order(n, p, who, d, t, &mut recs),
            }
        }
        recs
    }

    /// What the scenes make wait in block `b`.
    pub fn truth(&self, n: u64, b: u64) -> ScenesTruth {
        let mut t = ScenesTruth::default();
        for (_, scene, who, d) in self.playing(n) {
            let left = (who + n - 1) % n;
            let group: Vec<u64> = (0..n).filter(|q| q % 2 == who % 2).collect();
            match scene {
                0 => {
                    t.late_receiver = Some(LateReceiverTruth {
                        sender: left,
                        receiver: who,
                        blocking_send: d,
                        isend_wait: d + STEP - 2e-6,
                    })
                }
                1 => {
                    let last = straggler(n, who);
                    let waits = group
                        .iter()
                        .filter(|&&q| q != who && Some(q) != last)
                        .map(|&q| (q, d - entry_jitter(q, b)))
                        .collect();
                    t.late_broadcast = Some(CollectiveTruth {
                        root: who,
                        late: who,
                        group,
                        waits,
                    })
                }
                2 => {
                    let root = reduce_root(n, who);
                    t.early_reduce = Some(CollectiveTruth {
                        root,
                        late: who,
                        waits: vec![(root, d)],
                        group,
                    })
                }
                _ => {
                    t.wrong_order = Some(WrongOrderTruth {
                        receiver: who,
                        late_sender: left,
                        earlier_sender: (who + 1) % n,
                        wait: d - 2e-6,
                    })
                }
            }
        }
        t
    }
}

/// The non-root of the broadcast scene that enters after the root: the
/// highest process of P's parity but P, if P's parity has three.
fn straggler(n: u64, root: u64) -> Option<u64> {
    let others: Vec<u64> = (0..n).filter(|&q| q % 2 == root % 2 && q != root).collect();
    (others.len() >= 2).then(|| others[others.len() - 1])
}

/// The root of the early-reduce scene: the lowest process of P's parity
/// other than P.
fn reduce_root(n: u64, late: u64) -> u64 {
    (0..n)
        .find(|&q| q % 2 == late % 2 && q != late)
        .unwrap_or(late)
}

/// A blocking receive of `size` bytes from `from`: entered at `at`, left
/// at `done`.
fn recv(from: u64, tag: i32, at: f64, done: f64, size: i32, recs: &mut Vec<Rec>) {
    recs.push((14, -5, from as i32, tag, at));
    recs.push((14, size, from as i32, tag, done));
}

/// A blocking send: entered at `at`, left at `done`.
fn send(to: u64, tag: i32, at: f64, done: f64, size: i32, recs: &mut Vec<Rec>) {
    recs.push((8, size, to as i32, tag, at));
    recs.push((8, -7, to as i32, tag, done));
}

fn late_receiver(n: u64, p: u64, who: u64, d: f64, t: f64, recs: &mut Vec<Rec>) {
    let left = (who + n - 1) % n;
    // P arrives d after each of the three sends could have started.
    let a1 = t + d;
    let x1 = a1 + TRANSFER;
    let a2 = x1 + STEP + d;
    let x2 = a2 + TRANSFER;
    let a3 = x2 + STEP + d;
    if p == left {
        send(who, 2001, t, x1, LARGE, recs);
        let isend = x1 + 1e-6;
        recs.push((6, LARGE, who as i32, 2002, isend));
        recs.push((6, -7, who as i32, 2002, isend + STEP));
        // A send request's status names no source or tag.
        recs.push((40, -5, -5, -3, x1 + 2e-6));
        recs.push((40, 0, -1, -1, x2));
        send(who, 2003, x2 + 1e-6, x2 + 1e-6 + EAGER, SMALL, recs);
    } else if p == who {
        recv(left, 2001, a1, x1 + STEP, LARGE, recs);
        recv(left, 2002, a2, x2 + STEP, LARGE, recs);
        recv(left, 2003, a3, a3 + STEP, SMALL, recs);
    }
}

/// A rooted collective call of type `kind`.
fn rooted(kind: i32, root: u64, at: f64, done: f64, recs: &mut Vec<Rec>) {
    recs.push((kind, -5, root as i32, -3, at));
    recs.push((kind, SMALL, root as i32, -3, done));
}

fn late_broadcast(n: u64, p: u64, who: u64, d: f64, t: f64, b: u64, recs: &mut Vec<Rec>) {
    if p % 2 != who % 2 {
        return;
    }
    if p == who {
        rooted(20, who, t + d, t + d + 5e-6, recs);
    } else if Some(p) == straggler(n, who) {
        let at = t + d + STRAGGLE;
        rooted(20, who, at, at + LATENCY, recs);
    } else {
        // Leaves when the root's data has arrived (a large broadcast).
        let at = t + entry_jitter(p, b);
        rooted(20, who, at, t + d + LATENCY + TRANSFER + 2e-6, recs);
    }
}

fn early_reduce(n: u64, p: u64, who: u64, d: f64, t: f64, b: u64, recs: &mut Vec<Rec>) {
    if p % 2 != who % 2 {
        return;
    }
    let root = reduce_root(n, who);
    if p == root {
        rooted(21, root, t, t + d + LATENCY + 2e-6, recs);
    } else {
        let at = if p == who {
            t + d
        } else {
            t + entry_jitter(p, b)
        };
        rooted(21, root, at, at + 3e-6, recs);
    }
}

fn wrong_order(n: u64, p: u64, who: u64, d: f64, t: f64, recs: &mut Vec<Rec>) {
    let (left, right) = ((who + n - 1) % n, (who + 1) % n);
    let from_left = t + d + LATENCY + STEP;
    if p == right {
        send(who, 3001, t, t + EAGER, SMALL, recs);
    } else if p == left {
        send(who, 3002, t + d, t + d + EAGER, SMALL, recs);
    } else if p == who {
        recv(left, 3002, t + 2e-6, from_left, SMALL, recs);
        recv(
            right,
            3001,
            from_left + 2e-6,
            from_left + 2e-6 + STEP,
            SMALL,
            recs,
        );
    }
}
