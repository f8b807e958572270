// SPDX-License-Identifier: GPL-3.0-or-later

/// Counts of accepted and rejected lines.
struct Tally {
    private(set) var accepted = 0
    private(set) var rejected = 0

    var lines: Int { accepted + rejected }

    mutating func count(accepted isAccepted: Bool) {
        if isAccepted { accepted += 1 } else { rejected += 1 }
    }

    var summary: String { "\(lines) \(lines == 1 ? "line" : "lines"): \(accepted) accepted, \(rejected) rejected" }
}
