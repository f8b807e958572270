// SPDX-License-Identifier: GPL-3.0-or-later

/// How `report` groups its rows.
public enum ReportGrouping: String, Sendable, CaseIterable {
    case product, currency, storefront, account, day, month
}
