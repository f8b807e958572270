// SPDX-License-Identifier: GPL-3.0-or-later

extension ConsumptionRendering {
    /// A table of the requests by deadline, with the answer's status and when it was sent.
    public var text: String {
        guard !requests.isEmpty else {
            return all ? "no consumption requests\n" : "no consumption requests before their deadline\n"
        }
        var table = TextTable(headers: ["deadline (UTC)", "environment", "transaction", "reason", "answer"])
        for request in requests {
            var answer = Self.status(of: request, now: now)
            if let sent = request.answer, let status = sent.appleStatus {
                answer += " (\(status)) \(ISODate.minutes(sent.sent.wholeMilliseconds))"
            }
            table.add([
                ISODate.minutes(request.deadline.wholeMilliseconds), request.environment.rawValue,
                request.transactionId, request.reason ?? "-", answer,
            ])
        }
        return table.render()
    }
}
