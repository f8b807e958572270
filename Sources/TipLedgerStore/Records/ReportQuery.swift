// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

/// Which transactions a report covers.
public struct ReportQuery: Sendable {
    public var grouping: ReportGrouping = .product
    /// Purchase date from (inclusive), milliseconds since 1970.
    public var since: Int64?
    /// Purchase date until (exclusive), milliseconds since 1970.
    public var until: Int64?
    /// Only these environments; all when nil.
    public var environments: [AppStoreEnvironment]?

    init(
        grouping: ReportGrouping = .product, since: Int64? = nil, until: Int64? = nil,
        environments: [AppStoreEnvironment]? = nil
    ) {
        self.grouping = grouping
        self.since = since
        self.until = until
        self.environments = environments
    }
}
