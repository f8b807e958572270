// SPDX-License-Identifier: GPL-3.0-or-later

/// The result of `report`.
public struct Report: Sendable {
    public let rows: [ReportRow]
    public let openConsumptionRequests: [ConsumptionRequest]
}
