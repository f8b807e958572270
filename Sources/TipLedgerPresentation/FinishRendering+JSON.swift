// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension FinishRendering {
    /// One object per result: `{"transactionId":...,"environment":...,"outcome":...}`, without
    /// `environment` for an id no environment holds.
    public var jsonLines: [String] {
        results.map { result in
            var writer = JSONWriter()
            writer.object {
                $0.field("transactionId", result.transactionId)
                if let environment = result.environment { $0.field("environment", environment.rawValue) }
                $0.field("outcome", result.outcome.rawValue)
            }
            return writer.text
        }
    }
}
