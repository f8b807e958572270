// SPDX-License-Identifier: GPL-3.0-or-later

/// The results of the lines recorded since the last commit, printed once it is done.
struct PendingOutput {
    /// Lines recorded per commit, by default: commits come at the end of the first batch
    /// that brings this many or more. Each commit writes every page it changed to the
    /// ledger's log, so larger commits write less (see `BatchRecorder`); their results wait in
    /// memory, a few hundred bytes a line.
    static let linesPerCommit = 8192
    /// The longest the results of a recorded line wait for their commit, at the end of a
    /// batch, when batches come slowly (a large ledger). When the input makes `verify` wait,
    /// they are committed and printed before it waits.
    static let longestWait = Duration.seconds(1)

    let linesPerCommit: Int
    var bytes: [UInt8] = []
    private var lines = 0
    private var since: ContinuousClock.Instant? = nil

    init(linesPerCommit: Int) {
        self.linesPerCommit = linesPerCommit
    }

    /// After the results of `count` more lines were added to `bytes`, at `now`.
    mutating func added(lines count: Int, at now: ContinuousClock.Instant = .now) {
        lines += count
        if since == nil { since = now }
    }

    /// Whether the lines so far should be committed and printed now.
    var isDue: Bool { isDue(at: .now) }

    func isDue(at now: ContinuousClock.Instant) -> Bool {
        lines >= linesPerCommit || since.map { $0.duration(to: now) >= Self.longestWait } ?? false
    }

    /// The output so far, leaving none.
    mutating func take() -> [UInt8] {
        defer {
            bytes = []
            lines = 0
            since = nil
        }
        return bytes
    }
}
