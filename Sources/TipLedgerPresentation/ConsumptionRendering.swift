// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore
public import TipLedgerStore

/// The consumption requests as `consumption` lists them (docs/app-store-api.md): a table, or one
/// JSON object per line; one file per format.
public struct ConsumptionRendering {
    let requests: [ConsumptionRequestRecord]
    /// The time deadlines are judged against.
    let now: AppleDate
    /// The body a dry run would send, by the request's notification UUID.
    let wouldSend: [String: String]
    /// Whether requests past their deadline are listed too, which the empty state says.
    let all: Bool

    public init(requests: [ConsumptionRequestRecord], now: AppleDate, wouldSend: [String: String], all: Bool) {
        self.requests = requests
        self.now = now
        self.wouldSend = wouldSend
        self.all = all
    }

    /// `accepted`, `refused`, `sending`, `failed` (tried again), `decided`, `expired` or `open`.
    public static func status(of request: ConsumptionRequestRecord, now: AppleDate) -> String {
        if let answer = request.answer {
            if let status = answer.appleStatus { return (200..<300).contains(status) ? "accepted" : "refused" }
            if answer.error != nil { return request.deadline > now ? "failed" : "expired" }
            return "sending"
        }
        if request.decided { return "decided" }
        return request.deadline > now ? "open" : "expired"
    }
}
