// SPDX-License-Identifier: GPL-3.0-or-later

/// The page size of a ledger file a command creates; a file keeps its own once made
/// (docs/performance.md#scale).
public enum NewLedgerPages: Sendable {
    /// 16 KiB, for large transactions (`verify`'s batches): each commit rewrites fewer, larger
    /// index pages, with fewer system calls.
    case forBatches
    /// 4 KiB, for many small commits (the HTTP service's groups): a commit writes every page it
    /// changes whole, and each request lands on pages of the randomly keyed indexes that no
    /// other request of its group touches, so smaller pages write fewer bytes per request.
    case forSmallCommits

    /// Bytes per page.
    public var bytes: Int {
        switch self {
        case .forBatches: 16384
        case .forSmallCommits: 4096
        }
    }
}
