// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// What `verify` says about one input line (docs/cli.md): as one JSON object per line, or as
/// one line of text, one file per format. A known repeat prints exactly what verifying and
/// recording it again would.
public struct VerifyReport: Sendable {
    public enum Body: Sendable {
        case rejected(VerificationError)
        /// Verified; `recording` is nil in a dry run.
        case verified(VerifiedPayload, recording: RecordResult?)
        case known(KnownToken)

        /// A verdict, not recorded yet.
        public init(_ verdict: Result<VerifiedPayload, VerificationError>) {
            switch verdict {
            case .success(let payload): self = .verified(payload, recording: nil)
            case .failure(let error): self = .rejected(error)
            }
        }
    }

    public let line: Int
    public let body: Body

    public init(line: Int, body: Body) {
        self.line = line
        self.body = body
    }

    /// Whether the line counts as accepted.
    public var accepted: Bool {
        switch body {
        case .verified, .known: true
        case .rejected: false
        }
    }
}
