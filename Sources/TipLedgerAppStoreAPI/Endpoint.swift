// SPDX-License-Identifier: GPL-3.0-or-later

/// The App Store Server API endpoints the client calls, with their methods and Apple's rates.
enum Endpoint: Sendable, CaseIterable {
    case getTransactionInfo
    case getTransactionHistory
    case getNotificationHistory
    case lookUpOrderId
    case getRefundHistory
    case sendConsumptionInformation
    case requestTestNotification
    case getTestNotificationStatus

    /// Apple's name for the endpoint, which error messages start with.
    var name: String {
        switch self {
        case .getTransactionInfo: "Get Transaction Info"
        case .getTransactionHistory: "Get Transaction History"
        case .getNotificationHistory: "Get Notification History"
        case .lookUpOrderId: "Look Up Order ID"
        case .getRefundHistory: "Get Refund History"
        case .sendConsumptionInformation: "Send Consumption Information"
        case .requestTestNotification: "Request a Test Notification"
        case .getTestNotificationStatus: "Get Test Notification Status"
        }
    }

    var method: String {
        switch self {
        case .getTransactionInfo, .getTransactionHistory, .lookUpOrderId, .getRefundHistory,
            .getTestNotificationStatus:
            "GET"
        case .getNotificationHistory, .requestTestNotification: "POST"
        case .sendConsumptionInformation: "PUT"
        }
    }

    /// Apple's published production limit, in requests per second (enforced per hour); the
    /// sandbox allows a tenth. See
    /// <https://developer.apple.com/documentation/appstoreserverapi/identifying-rate-limits>.
    var productionRequestsPerSecond: Double {
        switch self {
        case .getTransactionInfo, .getTransactionHistory, .getNotificationHistory, .sendConsumptionInformation: 50
        case .lookUpOrderId, .getRefundHistory: 10
        case .requestTestNotification, .getTestNotificationStatus: 1
        }
    }
}
