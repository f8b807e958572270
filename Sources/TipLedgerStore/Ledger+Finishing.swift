// SPDX-License-Identifier: GPL-3.0-or-later
public import TipLedgerCore

extension Ledger {
    /// Finishes each transaction id in each of `environments` (every environment unless given)
    /// that holds it, looking each up by its key: one result per id and environment that holds
    /// it, in the order of `transactionIds` and then of `environments`, or one `notFound` result
    /// for an id that none holds.
    public func finish(
        _ transactionIds: [String], environments: Set<AppStoreEnvironment> = Set(AppStoreEnvironment.allCases)
    ) throws -> [FinishResult] {
        let now = clock.now().wholeMilliseconds
        let environments = environments.sorted()
        return try write { database in
            let writer = TransactionApplier(database: database, now: now)
            return try database.writeTransaction {
                try transactionIds.flatMap { id in
                    var results: [FinishResult] = []
                    for environment in environments {
                        guard
                            try database.queryOne(
                                "SELECT 1 FROM transactions WHERE environment = ? AND transaction_id = ?",
                                environment.rawValue, id, row: { _ in true }) != nil
                        else { continue }
                        // Changes only a row not finished yet.
                        let finished = try writer.finishTransaction(environment, id, source: "finish")
                        results.append(
                            FinishResult(
                                transactionId: id, environment: environment,
                                outcome: finished ? .finished : .alreadyFinished))
                    }
                    return results.isEmpty
                        ? [FinishResult(transactionId: id, environment: nil, outcome: .notFound)] : results
                }
            }
        }
    }
}
