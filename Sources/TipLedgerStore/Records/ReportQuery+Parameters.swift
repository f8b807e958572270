// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension ReportQuery {
    /// A report parameter given as text that does not parse; `parameter` is its bare name
    /// (`by`, `since`, `until`, `commission`), so callers can present it as `--by` or `?by=`.
    public struct ParameterError: Error, Sendable, Equatable {
        public let parameter: String
        /// What the parameter takes, e.g. "a date like 2025-10-01".
        public let expected: String
        public let given: String

        public init(parameter: String, expected: String, given: String) {
            self.parameter = parameter
            self.expected = expected
            self.given = given
        }
    }

    /// A query from text parameters as the CLI and the HTTP service receive them. A plain date
    /// for `until` includes that whole day; `since` is inclusive, `until` exclusive.
    public init(
        by: String?, since: String?, until: String?, environments: [AppStoreEnvironment]?
    ) throws(ParameterError) {
        self.init()
        if let by {
            guard let grouping = ReportGrouping(rawValue: by) else {
                throw ParameterError(
                    parameter: "by",
                    expected: "one of \(ReportGrouping.allCases.map(\.rawValue).joined(separator: ", "))",
                    given: by)
            }
            self.grouping = grouping
        }
        self.since = try Self.date(since, parameter: "since", endOfDay: false)
        self.until = try Self.date(until, parameter: "until", endOfDay: true)
        if let start = self.since, let end = self.until, start >= end {
            throw ParameterError(
                parameter: "since", expected: "a date before until's (\(until ?? ""))", given: since ?? "")
        }
        self.environments = environments
    }

    private static func date(_ text: String?, parameter: String, endOfDay: Bool) throws(ParameterError) -> Int64? {
        guard let text else { return nil }
        guard let date = AppleDate.parse(text) else {
            throw ParameterError(
                parameter: parameter, expected: "a date like 2025-10-01 or 2025-10-01T07:00:00Z", given: text)
        }
        let isPlainDay = text.utf8.count == 10
        return date.wholeMilliseconds + (endOfDay && isPlainDay ? 86_400_000 : 0)
    }
}
