// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore
internal import TipLedgerHTTP

/// The App Store Server API endpoints the fake answers, and what Apple accepts on each: the
/// method, the path, the query parameters and the JSON body, as Apple documents them.
public enum FakeEndpoint: String, Sendable, CaseIterable {
    case getTransactionInfo
    case getTransactionHistory
    case getNotificationHistory
    case lookUpOrderId
    case getRefundHistory
    case sendConsumptionInformation
    case requestTestNotification
    case getTestNotificationStatus

    public var method: String {
        switch self {
        case .getNotificationHistory, .requestTestNotification: "POST"
        case .sendConsumptionInformation: "PUT"
        default: "GET"
        }
    }

    /// The path, up to the parameter when there is one.
    private var route: (path: String, hasParameter: Bool) {
        switch self {
        case .getTransactionInfo: ("/inApps/v1/transactions/", true)
        case .getTransactionHistory: ("/inApps/v2/history/", true)
        case .getNotificationHistory: ("/inApps/v1/notifications/history", false)
        case .lookUpOrderId: ("/inApps/v1/lookup/", true)
        case .getRefundHistory: ("/inApps/v2/refund/lookup/", true)
        case .sendConsumptionInformation: ("/inApps/v2/transactions/consumption/", true)
        case .requestTestNotification: ("/inApps/v1/notifications/test", false)
        case .getTestNotificationStatus: ("/inApps/v1/notifications/test/", true)
        }
    }

    /// The endpoint `path` names and its parameter, or nil for a path Apple does not serve.
    static func route(_ path: String) -> (endpoint: FakeEndpoint, parameter: String?)? {
        for endpoint in allCases {
            let route = endpoint.route
            if !route.hasParameter {
                if path == route.path { return (endpoint, nil) }
                continue
            }
            guard path.hasPrefix(route.path) else { continue }
            let parameter = String(path.dropFirst(route.path.count))
            if !parameter.isEmpty && !parameter.contains("/") { return (endpoint, parameter) }
        }
        return nil
    }

    /// Why Apple would refuse `query`, or nil.
    func problem(with query: HTTPQuery) -> String? {
        let allowed: [String: (repeats: Bool, valid: (String) -> Bool)]
        let anyText: (String) -> Bool = { !$0.isEmpty }
        let milliseconds: (String) -> Bool = { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        switch self {
        case .getTransactionHistory:
            allowed = [
                "revision": (false, anyText), "startDate": (false, milliseconds), "endDate": (false, milliseconds),
                "productId": (true, anyText),
                "productType": (
                    true, { ["AUTO_RENEWABLE", "NON_RENEWABLE", "CONSUMABLE", "NON_CONSUMABLE"].contains($0) }
                ),
                "sort": (false, { ["ASCENDING", "DESCENDING"].contains($0) }),
                "subscriptionGroupIdentifier": (true, anyText),
                "inAppOwnershipType": (false, { ["PURCHASED", "FAMILY_SHARED"].contains($0) }),
                "revoked": (false, { ["true", "false"].contains($0) }),
            ]
        case .getNotificationHistory: allowed = ["paginationToken": (false, anyText)]
        case .getRefundHistory: allowed = ["revision": (false, anyText)]
        default: allowed = [:]
        }
        for item in query {
            guard let rule = allowed[item.name] else { return "query parameter \(item.name) is not taken here" }
            guard rule.repeats || query.values(for: item.name).count == 1 else {
                return "query parameter \(item.name) is given more than once"
            }
            guard rule.valid(item.value) else {
                return "query parameter \(item.name) has the bad value '\(item.value)'"
            }
        }
        return nil
    }

    /// The JSON body of `request`, or why Apple would refuse it.
    func body(of request: HTTPRequest) -> Result<JSONObject?, FakeRejection> {
        let contentType = request.headers["Content-Type"]
        switch self {
        case .getNotificationHistory, .sendConsumptionInformation:
            guard contentType == "application/json" else {
                return .failure(
                    FakeRejection("a JSON body needs Content-Type application/json, not \(contentType ?? "none")"))
            }
            guard let object = try? JSONParser.parse(request.body).objectValue else {
                return .failure(FakeRejection("the body is not a JSON object"))
            }
            let problem =
                self == .getNotificationHistory ? Self.historyProblem(object) : Self.consumptionProblem(object)
            if let problem { return .failure(problem) }
            return .success(object)
        default:
            guard request.body.isEmpty, contentType == nil else {
                return .failure(FakeRejection("\(rawValue) takes no body"))
            }
            return .success(nil)
        }
    }

    /// Why Apple would refuse a NotificationHistoryRequest, or nil.
    private static func historyProblem(_ body: JSONObject) -> FakeRejection? {
        let types: [String: String] = [
            "startDate": "integer", "endDate": "integer", "notificationType": "string",
            "notificationSubtype": "string", "transactionId": "string", "onlyFailures": "bool",
        ]
        if let problem = typeProblem(body, types, required: ["startDate", "endDate"]) { return problem }
        if body["transactionId"] != nil && body["notificationType"] != nil {
            return FakeRejection("transactionId and notificationType together", code: 4_000_019)
        }
        if body["notificationSubtype"] != nil && body["notificationType"] == nil {
            return FakeRejection("notificationSubtype without notificationType", code: 4_000_018)
        }
        return nil
    }

    /// Why Apple would refuse a ConsumptionRequest (v2), or nil.
    private static func consumptionProblem(_ body: JSONObject) -> FakeRejection? {
        let types: [String: String] = [
            "customerConsented": "bool", "deliveryStatus": "string", "sampleContentProvided": "bool",
            "consumptionPercentage": "integer", "refundPreference": "string",
        ]
        let required = ["customerConsented", "deliveryStatus", "sampleContentProvided"]
        if let problem = typeProblem(body, types, required: required) { return problem }
        guard body["customerConsented"] == .bool(true) else {
            return FakeRejection("customerConsented is not true", code: 4_000_035)
        }
        let statuses = [
            "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
            "UNDELIVERED_OTHER",
        ]
        guard let status = body["deliveryStatus"]?.stringValue, statuses.contains(status) else {
            return FakeRejection("deliveryStatus is not one of Apple's", code: 4_000_036)
        }
        if case .integer(let percentage)? = body["consumptionPercentage"] {
            guard (0...100_000).contains(percentage), percentage == 0 || status == "DELIVERED" else {
                return FakeRejection("consumptionPercentage \(percentage) does not fit \(status)")
            }
        }
        if let preference = body["refundPreference"]?.stringValue,
            !["DECLINE", "GRANT_FULL", "GRANT_PRORATED"].contains(preference)
        {
            return FakeRejection("refundPreference \(preference) is not one of Apple's")
        }
        return nil
    }

    /// A member missing from `required`, not named in `types`, or of another type.
    private static func typeProblem(_ body: JSONObject, _ types: [String: String], required: [String]) -> FakeRejection?
    {
        if let missing = required.first(where: { body[$0] == nil }) { return FakeRejection("\(missing) is missing") }
        for (name, value) in body {
            guard let type = types[name] else { return FakeRejection("\(name) is not a member Apple knows") }
            let fits: Bool
            switch (type, value) {
            case ("integer", .integer), ("string", .string), ("bool", .bool): fits = true
            default: fits = false
            }
            guard fits else { return FakeRejection("\(name) is \(value.typeName), not a \(type)") }
        }
        return nil
    }
}

/// Why the fake refused a request: what a test reads in `FakeAppStoreServer.rejections`, and
/// Apple's error code for the answer.
public struct FakeRejection: Error, Sendable, CustomStringConvertible {
    public let reason: String
    /// Apple's error code for the 400 answer (`GeneralBadRequestError` unless a closer one fits).
    let code: Int64

    init(_ reason: String, code: Int64 = 4_000_000) {
        self.reason = reason
        self.code = code
    }

    public var description: String { reason }
}
