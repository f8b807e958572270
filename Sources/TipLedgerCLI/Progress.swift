// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

/// A progress line on standard error, only when it is a terminal, at most twice a second.
struct Progress {
    let terminal: Terminal
    let clock: WallClock
    private let started: AppleDate
    private var lastShown: AppleDate
    private var shown = false

    init(terminal: Terminal, clock: WallClock) {
        self.terminal = terminal
        self.clock = clock
        self.started = clock.now()
        self.lastShown = started
    }

    mutating func update(lines: Int, of total: Int? = nil) {
        guard terminal.errorIsTerminal else { return }
        let now = clock.now()
        guard now.milliseconds - lastShown.milliseconds >= 500 else { return }
        lastShown = now
        shown = true
        let seconds = max((now.milliseconds - started.milliseconds) / 1000, 0.001)
        let count = total.map { "\(lines)/\($0)" } ?? "\(lines)"
        terminal.errorText("\r\(count) lines, \(Int(Double(lines) / seconds)) lines/s   ")
    }

    func finish() {
        if shown { terminal.errorText("\n") }
    }
}
