// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
public import TipLedgerStore

/// What became of the signed payloads of a page or a whole walk, counted by outcome: the
/// recording outcomes of `verify` (`applied`, `recorded`, `updated`, `duplicate`,
/// `not_recorded`), `verified` in a dry run, and `rejected`.
public struct OutcomeTally: Sendable {
    /// The outcomes in the order they are told.
    static let outcomes = ["applied", "recorded", "updated", "duplicate", "not_recorded", "verified", "rejected"]

    private var counts: [String: Int] = [:]

    public init() {}

    public var total: Int { counts.values.reduce(0, +) }
    public var rejected: Int { counts["rejected", default: 0] }

    public mutating func count(_ outcomes: [PayloadOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .rejected: counts["rejected", default: 0] += 1
            case .verified(_, let recording): counts[recording?.outcome.rawValue ?? "verified", default: 0] += 1
            }
        }
    }

    /// `12 applied, 3 duplicate, 1 rejected`; `none` when nothing was counted.
    public var summary: String {
        let parts = Self.outcomes.compactMap { outcome in counts[outcome].map { "\($0) \(outcome)" } }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// One member per outcome counted, in `outcomes`' order.
    func write(to object: inout JSONWriter.ObjectWriter) {
        for outcome in Self.outcomes {
            if let count = counts[outcome] { object.field(outcome, count) }
        }
    }
}
