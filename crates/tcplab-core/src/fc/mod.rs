//! Receiver-side flow control policies (DESIGN.md "Receiver-side flow control is a
//! trait"): they decide the advertised window. Classic TCP (RFC 9293 3.8.6.2.2,
//! RFC 1122 4.2.3.3) and AFC (Sanadhya & Sivakumar 2014); RSFC arrives with its issue.

pub mod afc;
pub mod classic;

use serde::{Deserialize, Serialize};

/// Which receiver policy a flow uses (scenario key `fc`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FcKind {
    #[default]
    Classic,
    /// Adaptive flow control: the receiver reports its application's read rate and the
    /// sender's flow window is `awnd + rate x RTT`. Used only when both ends enable it.
    Afc,
}
