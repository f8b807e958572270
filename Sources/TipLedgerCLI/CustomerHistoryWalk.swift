// SPDX-License-Identifier: GPL-3.0-or-later
internal import TipLedgerAppStoreAPI
internal import TipLedgerCore
internal import TipLedgerStore

/// A walk through one customer's transactions (Get Transaction History v2) or refunds (Get
/// Refund History v2), every page by its `revision`, each signed transaction put through
/// `SignedPayloadIntake`.
///
/// The revision after each page is saved with its records. A walk that stopped resumes after
/// the last page recorded; one that completed continues, next time, from its last revision,
/// which asks only for what changed since (Apple's advice for refunds). Transaction history is
/// asked for in ascending order of modification, so a transaction that changes while the pages
/// are read comes again with its new state, and the ledger takes the newer one.
struct CustomerHistoryWalk {
    let walk: SyncCursor.Walk
    /// Any transaction id of the customer; also the walk's key in the ledger.
    let transactionId: String
    let intake: SignedPayloadIntake
    /// Whether new transactions are recorded finished (delivered) rather than pending.
    let finish: Bool

    /// One page, once recorded.
    struct Page {
        let environment: AppStoreEnvironment
        let number: Int
        let outcomes: [PayloadOutcome]
    }

    /// Walks the customer's history in the first environment of `connection` that knows the
    /// transaction, from the stored revision unless `fromStart`. Returns the environment and the
    /// cursor as the walk left it, or nil when no environment knows the transaction.
    func run(
        _ connection: AppStoreConnection, fromStart: Bool, now: AppleDate, note: (String) -> Void,
        page: (Page) throws -> Void
    ) throws -> (AppStoreEnvironment, SyncCursor)? {
        for (environment, client) in connection.clients {
            var cursor = SyncCursor(environment: environment, walk: walk, scope: transactionId)
            if !fromStart, let ledger = intake.ledger {
                cursor = try ledger.syncCursor(environment, walk, scope: transactionId)
            }
            do {
                return (environment, try walk(client, environment, from: cursor, now: now, note: note, page: page))
            } catch let error as AppStoreAPIError where error.isNotFound {
                continue
            }
        }
        return nil
    }

    private func walk(
        _ client: AppStoreServerAPIClient, _ environment: AppStoreEnvironment, from stored: SyncCursor,
        now: AppleDate, note: (String) -> Void, page: (Page) throws -> Void
    ) throws -> SyncCursor {
        var cursor = stored
        if stored.running {
            note("\(environment.rawValue): resuming the walk after page \(stored.pages)")
        } else {
            if stored.cursor != nil {
                note(
                    "\(environment.rawValue): asking only for what changed since the last walk "
                        + "(--from-start asks for everything)")
            }
            cursor.pages = 0
        }
        cursor.running = true
        var pages = try pagesOf(client, after: cursor.cursor)
        while true {
            let signed: [String]
            let hasMore: Bool
            let fetched: Result<(signed: [String], hasMore: Bool)?, AppStoreAPIError>
            do {
                fetched = .success(try pages.next())
            } catch {
                fetched = .failure(error)
            }
            switch fetched {
            case .success(let next?): (signed, hasMore) = next
            case .success(nil): return cursor
            case .failure(let error):
                // InvalidRequestRevisionError: Apple no longer takes the stored revision.
                guard cursor.cursor != nil, cursor.cursor == stored.cursor, error.apple?.errorCode == 4_000_005 else {
                    throw error
                }
                note("\(environment.rawValue): Apple no longer takes the stored revision; walking from the start")
                cursor.cursor = nil
                cursor.pages = 0
                pages = try pagesOf(client, after: nil)
                continue
            }
            cursor.cursor = pages.cursor
            cursor.pages += 1
            if !hasMore {
                cursor.running = false
                cursor.completed = now
            }
            let outcomes = try intake.take(signed, as: .transaction, finish: finish, saving: cursor)
            try page(Page(environment: environment, number: cursor.pages, outcomes: outcomes))
        }
    }

    /// The pages of the walk's endpoint after `revision`, each as its signed transactions and
    /// whether more follow.
    private func pagesOf(_ client: AppStoreServerAPIClient, after revision: String?) throws(AppStoreAPIError)
        -> HistoryPages
    {
        switch walk {
        case .refundHistory:
            return HistoryPages(
                refunds: try client.refundHistory(transactionId: transactionId, resumingAfter: revision))
        case .transactionHistory, .notificationHistory:
            var request = TransactionHistoryRequest()
            request.sort = .ascending
            return HistoryPages(
                transactions: try client.transactionHistory(
                    transactionId: transactionId, request, resumingAfter: revision))
        }
    }

    /// Transaction history or refund history pages, as signed transactions.
    private enum HistoryPages {
        case transactions(APIPages<HistoryResponse>)
        case refunds(APIPages<RefundHistoryResponse>)

        init(transactions: APIPages<HistoryResponse>) { self = .transactions(transactions) }
        init(refunds: APIPages<RefundHistoryResponse>) { self = .refunds(refunds) }

        var cursor: String? {
            switch self {
            case .transactions(let pages): pages.cursor
            case .refunds(let pages): pages.cursor
            }
        }

        mutating func next() throws(AppStoreAPIError) -> (signed: [String], hasMore: Bool)? {
            switch self {
            case .transactions(var pages):
                let page = try pages.next()
                self = .transactions(pages)
                return page.map { ($0.signedTransactions, $0.hasMore) }
            case .refunds(var pages):
                let page = try pages.next()
                self = .refunds(pages)
                return page.map { ($0.signedTransactions, $0.hasMore) }
            }
        }
    }
}
