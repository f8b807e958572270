// SPDX-License-Identifier: GPL-3.0-or-later

extension FinishRendering {
    /// One line per result: the id, its environment in parentheses, and the outcome in words.
    public var textLines: [String] {
        results.map { result in
            let environment = result.environment.map { " (\($0.rawValue))" } ?? ""
            let outcome = String(result.outcome.rawValue.map { $0 == "_" ? " " : $0 })
            return "\(result.transactionId)\(environment): \(outcome)"
        }
    }
}
