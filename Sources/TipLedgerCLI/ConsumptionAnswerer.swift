// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerStore

/// Answers consumption requests with Send Consumption Information (v2), from what the ledger
/// holds, once each and only before their deadline.
///
/// The answer says the tip was delivered, wholly consumed, when the app finished it, and
/// undelivered otherwise; no sample content (a tip has none); the operator's refund preference
/// when one is configured. A request is claimed in the ledger before its answer is sent, and
/// Apple's status is recorded after, so a request Apple answered is never sent again, whoever
/// runs it; one whose send failed is tried again on a later run, while its deadline lasts.
struct ConsumptionAnswerer {
    let ledger: Ledger
    let policy: ConsumptionPolicy

    /// How long a claim keeps other senders off: longer than a call with all its retries.
    static let claim: Duration = .seconds(600)

    /// What became of one request.
    enum Result {
        /// Apple took the answer (202).
        case accepted(status: Int, body: String)
        /// Apple refused it with a 4xx other than 429 and the errors it says to retry; it is not
        /// sent again.
        case refused(status: Int, body: String, error: AppStoreAPIError)
        /// No answer came (unreachable, 5xx, rate limited, an error Apple says to retry); it is
        /// tried again on a later run.
        case failed(body: String, error: AppStoreAPIError)
        /// Not sent: the ledger cannot say, another sender has it, or its environment has no API.
        case skipped(reason: String)
    }

    /// The answer for `request`, or why the ledger cannot give one.
    func answer(for request: ConsumptionRequestRecord)
        -> Swift.Result<TipLedgerAppStoreAPI.ConsumptionRequest, Unanswerable>
    {
        guard let state = request.state else {
            return .failure(
                Unanswerable(
                    "the ledger does not hold transaction \(request.transactionId); "
                        + "'tipledger lookup \(request.transactionId)' records it"))
        }
        guard state == .finished || state == .pending else {
            return .failure(Unanswerable("transaction \(request.transactionId) is \(state.rawValue) already"))
        }
        let delivered = request.finished
        // Apple refuses a percentage for auto-renewable subscriptions.
        let percentage: Int32? =
            request.productType == ProductType.autoRenewableSubscription.rawValue ? nil : delivered ? 100_000 : 0
        return .success(
            TipLedgerAppStoreAPI.ConsumptionRequest(
                deliveryStatus: delivered ? .delivered : .undeliveredOther, sampleContentProvided: false,
                consumptionPercentage: percentage, refundPreference: policy.refundPreference))
    }

    /// Why a request gets no answer from the ledger.
    struct Unanswerable: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The requests that may be answered at `now`: before their deadline, not decided by
    /// Apple, not answered.
    func open(now: AppleDate) throws -> [ConsumptionRequestRecord] {
        try ledger.consumptionRequests(now: now).filter { !$0.decided && !$0.isAnswered }
    }

    /// Answers each of `requests` through its environment's client in `connection`, in order.
    /// Stops at the first failure that is not Apple refusing the one answer (the others would
    /// fail alike), returning what was done so far.
    func answer(_ requests: [ConsumptionRequestRecord], connection: AppStoreConnection) throws
        -> [(ConsumptionRequestRecord, Result)]
    {
        var results: [(ConsumptionRequestRecord, Result)] = []
        for request in requests {
            let result = try answer(request, connection: connection)
            results.append((request, result))
            if case .failed = result { break }
        }
        return results
    }

    private func answer(_ request: ConsumptionRequestRecord, connection: AppStoreConnection) throws -> Result {
        guard let client = connection.client(request.environment) else {
            return .skipped(reason: "tipledger does not call the API for \(request.environment.rawValue)")
        }
        let answer: TipLedgerAppStoreAPI.ConsumptionRequest
        let body: String
        switch self.answer(for: request) {
        case .failure(let why): return .skipped(reason: why.reason)
        case .success(let built):
            answer = built
            body = String(decoding: try built.body(), as: UTF8.self)
        }
        guard try ledger.claimConsumptionAnswer(request.notificationUUID, body: body, claim: Self.claim) else {
            return .skipped(reason: "answered, decided or past its deadline already, or another sender has it")
        }
        let status: Int
        do {
            status = try client.sendConsumptionInformation(transactionId: request.transactionId, answer)
        } catch {
            let refused = error.isRefusal
            try ledger.recordConsumptionAnswer(
                request.notificationUUID, status: refused ? error.status : nil,
                error: error.apple?.description ?? error.message)
            return refused
                ? .refused(status: error.status ?? 0, body: body, error: error) : .failed(body: body, error: error)
        }
        try ledger.recordConsumptionAnswer(request.notificationUUID, status: status, error: nil)
        return .accepted(status: status, body: body)
    }
}
