// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerCore

extension ConsumptionRendering {
    /// One object per request: what Apple asked, its deadline and status, and the answer sent or
    /// the body a dry run would send.
    public var jsonLines: [String] {
        requests.map { request in
            var writer = JSONWriter()
            writer.object { object in
                object.field("environment", request.environment.rawValue)
                object.field("transactionId", request.transactionId)
                object.field("notificationUUID", request.notificationUUID)
                object.field("reason", request.reason)
                object.field("requested", request.requested.description)
                object.field("deadline", request.deadline.description)
                object.field("status", Self.status(of: request, now: now))
                object.field("body", request.answer?.body)
                object.field("sent", request.answer?.sent.description)
                object.field("appleStatus", request.answer?.appleStatus)
                object.field("error", request.answer?.error)
                if let body = wouldSend[request.notificationUUID] { object.field("wouldSend", body) }
            }
            return writer.text
        }
    }
}
