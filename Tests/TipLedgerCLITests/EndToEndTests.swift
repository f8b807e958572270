// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import Testing

/// The whole pipeline through the real binary: testkit signs, verify records, notifications
/// refund, reverse and ask, and restore and report answer — every answer checked against what
/// the tests decoded from the signed payloads themselves.
@Suite struct EndToEndTests {
    static let bundleId = SharedInputs.bundleId

    /// `date` as the ISO 8601 text the CLI takes, whole seconds.
    static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// Milliseconds since 1970 of `date`, truncated to whole seconds (as `iso` writes it).
    static func milliseconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down)) * 1000
    }

    /// Runs `tipledger` in `directory`.
    struct Runner {
        let directory: TemporaryDirectory

        func callAsFunction(_ arguments: [String], input: Subprocess.Input = .none) async throws -> ProcessOutput {
            try await TipLedgerBinary.run(arguments, input: input, in: directory.path)
        }

        /// Signs a notification of `type` about `tip` at `date`.
        func notification(_ type: String, about tip: SignedTip, at date: Date, _ extra: [String] = []) async throws
            -> String
        {
            let result = try await self(
                [
                    "testkit", "notification", "--keys", "keys", "--bundle-id", bundleId, "--environment", "Sandbox",
                    "--type", type, "--transaction", "-", "--signed-date", iso(date),
                ] + extra, input: .text(tip.token + "\n"))
            guard result.exited(0), result.outLines.count == 1 else {
                throw SharedInputError(step: "testkit notification --type \(type)", output: result)
            }
            return result.outLines[0]
        }
    }

    @Test func tipsRefundsAndAConsumptionRequestFlowThroughTheLedger() async throws {
        try await TemporaryDirectory.with { directory in
            let tipledger = Runner(directory: directory)
            let made = try await tipledger(["testkit", "init", "--out", "keys"])
            try #require(made.exited(0), "\(made.summary)")
            let ledger = ["--db", "tips.sqlite"] + SharedInputs.acceptingTestkit(keys: "keys")
            let now = Date()

            // 200 tips over the 30 days before yesterday.
            let signing = try await tipledger([
                "testkit", "transaction", "--keys", "keys", "--bundle-id", Self.bundleId, "--environment", "Sandbox",
                "--count", "200", "--seed", "77", "--purchase-date", Self.iso(now - 86_400),
            ])
            try #require(signing.exited(0), "\(signing.summary)")
            let tips = try signing.outLines.map(SignedTip.init)
            try #require(tips.count == 200)
            #expect(Set(tips.map(\.transactionId)).count == 200)
            #expect(tips.allSatisfy { $0.bundleId == Self.bundleId && $0.environment == "Sandbox" })

            let recording = try await tipledger(["verify", "--format", "json"] + ledger, input: .text(signing.out))
            #expect(recording.exited(0), "\(recording.summary)")
            #expect(recording.err.isEmpty)
            let recorded = try recording.jsonLines()
            try #require(recorded.count == 200)
            for (index, (result, tip)) in zip(recorded, tips).enumerated() {
                #expect(JSONValue.int64(result["line"]) == Int64(index + 1))
                #expect(result["ok"] as? Bool == true)
                #expect(result["kind"] as? String == "transaction")
                #expect(result["environment"] as? String == "Sandbox")
                #expect(result["transactionId"] as? String == tip.transactionId)
                #expect(result["productId"] as? String == tip.productId)
                #expect(result["appAccountToken"] as? String == tip.account)
                #expect(result["outcome"] as? String == "recorded")
                #expect(result["state"] as? String == "finished")
                #expect(result["finished"] as? Bool == true)
            }

            // One account's first tip is refunded; its second is refunded, then the refund is
            // reversed; another account's tip gets a consumption request.
            let accounts = tips.compactMap(\.account)
            let account = try #require(accounts.first { id in accounts.filter { $0 == id }.count >= 3 })
            let accountTips = tips.filter { $0.account == account }
            let refunded = accountTips[0]
            let reinstated = accountTips[1]
            let asked = try #require(tips.first { $0.account != account && $0.account != nil })
            let refundDate = now - 3 * 3600
            let reversalDate = now - 2 * 3600
            let requestDate = now - 3600
            async let refund = tipledger.notification(
                "REFUND", about: refunded, at: refundDate, ["--revocation-reason", "1"])
            async let refundToReverse = tipledger.notification("REFUND", about: reinstated, at: refundDate)
            async let reversal = tipledger.notification("REFUND_REVERSED", about: reinstated, at: reversalDate)
            async let request = tipledger.notification("CONSUMPTION_REQUEST", about: asked, at: requestDate)
            let bodies = try await [refund, refundToReverse, reversal, request]
            let notifications = try bodies.map { try CompactJWS(webhookBody: $0).payload }
            let nested = try notifications.map { notification in
                let data = try #require(notification["data"] as? [String: Any])
                return try SignedTip(try #require(data["signedTransactionInfo"] as? String))
            }
            #expect(
                notifications.map { $0["notificationType"] as? String } == [
                    "REFUND", "REFUND", "REFUND_REVERSED", "CONSUMPTION_REQUEST",
                ])
            #expect(nested.map(\.transactionId) == [refunded, reinstated, reinstated, asked].map(\.transactionId))
            #expect(nested.map(\.price) == [refunded, reinstated, reinstated, asked].map(\.price))
            #expect(JSONValue.int64(notifications[3]["signedDate"]) == Self.milliseconds(requestDate))

            let applying = try await tipledger(
                ["verify", "--format", "json"] + ledger, input: .text(bodies.joined(separator: "\n") + "\n"))
            #expect(applying.exited(0), "\(applying.summary)")
            let applied = try applying.jsonLines()
            try #require(applied.count == 4)
            #expect(applied.map { $0["kind"] as? String } == Array(repeating: "notification", count: 4))
            #expect(applied.map { $0["outcome"] as? String } == Array(repeating: "applied", count: 4))
            #expect(applied.map { $0["state"] as? String } == ["refunded", "refunded", "finished", "finished"])
            let uuids = notifications.map { $0["notificationUUID"] as? String }
            #expect(applied.map { $0["notificationUUID"] as? String } == uuids)
            #expect(applied.map { $0["transactionId"] as? String } == nested.map(\.transactionId))

            let again = try await tipledger(["verify", "--format", "json"] + ledger, input: .text(bodies[0] + "\n"))
            #expect(again.exited(0), "\(again.summary)")
            let duplicate = try #require(try again.jsonLines().first)
            #expect(duplicate["outcome"] as? String == "duplicate")
            #expect(duplicate["state"] as? String == "refunded")

            // Restore: the refunded tip is left out unless --all; totals are net of it.
            async let restoring = tipledger(
                ["restore", "--account", account.uppercased(), "--format", "json"] + ledger)
            async let restoringAll = tipledger(["restore", "--account", account, "--all", "--format", "json"] + ledger)
            let (restore, restoreAll) = try await (restoring, restoringAll)
            #expect(restore.exited(0) && restoreAll.exited(0), "\(restore.summary) \(restoreAll.summary)")
            let restored = try restore.json()
            #expect(restored["account"] as? String == account)
            let kept = accountTips.filter { $0.transactionId != refunded.transactionId }
            try Self.expectTransactions(restored["transactions"], equal: kept, refunded: nil)
            var netByCurrency: [String: Int64] = [:]
            for tip in accountTips where tip.transactionId != refunded.transactionId {
                netByCurrency[tip.currency, default: 0] += tip.price
            }
            netByCurrency[refunded.currency, default: 0] += 0
            let totals = try #require(restored["totals"] as? [[String: Any]])
            #expect(totals.map { $0["currency"] as? String } == netByCurrency.keys.sorted())
            for total in totals {
                #expect(total["environment"] as? String == "Sandbox")
                #expect(JSONValue.int64(total["net_milli"]) == netByCurrency[total["currency"] as? String ?? ""])
            }
            let restoredAll = try restoreAll.json()
            try Self.expectTransactions(
                restoredAll["transactions"], equal: accountTips,
                refunded: (refunded.transactionId, Self.milliseconds(refundDate), 1))
            #expect((restoredAll["totals"] as? [[String: Any]])?.count == totals.count)

            // A customer without an account token restores by appTransactionId.
            let anonymous = try #require(tips.first { $0.account == nil })
            let byAppTransaction = try await tipledger(
                ["restore", "--app-transaction-id", try #require(anonymous.appTransactionId), "--format", "json"]
                    + ledger)
            #expect(byAppTransaction.exited(0), "\(byAppTransaction.summary)")
            let byAppTransactionJSON = try byAppTransaction.json()
            #expect(byAppTransactionJSON["account"] is NSNull)
            #expect(byAppTransactionJSON["appTransactionId"] as? String == anonymous.appTransactionId)
            let anonymousTips = tips.filter { $0.appTransactionId == anonymous.appTransactionId }
            try Self.expectTransactions(
                try byAppTransaction.json()["transactions"], equal: anonymousTips, refunded: nil)
            let inProduction = try await tipledger(
                ["restore", "--app-transaction-id", try #require(anonymous.appTransactionId), "--format", "json"]
                    + ["--db", "tips.sqlite", "--environment", "Production"])
            #expect(inProduction.exited(0), "\(inProduction.summary)")
            #expect((try inProduction.json()["transactions"] as? [Any])?.isEmpty == true)
            #expect((try inProduction.json()["totals"] as? [Any])?.isEmpty == true)

            // Report by product (the default), by day, and the same as CSV.
            async let byProduct = tipledger(["report", "--format", "json"] + ledger)
            async let byDay = tipledger(["report", "--by", "day", "--format", "json"] + ledger)
            async let byDayCSV = tipledger(["report", "--by", "day", "--format", "csv"] + ledger)
            async let byCurrency = tipledger(["report", "--by", "currency", "--format", "json"] + ledger)
            let (productReport, dayReport, dayCSV, currencyReport) = try await (byProduct, byDay, byDayCSV, byCurrency)
            for result in [productReport, dayReport, dayCSV, currencyReport] {
                #expect(result.exited(0), "\(result.summary)")
                #expect(result.err.isEmpty)
            }
            let productJSON = try productReport.json()
            try Self.expectRows(
                productJSON["rows"], group: "product", equal: tips, groupOf: \.productId, refunded: refunded)
            let requests = try #require(productJSON["openConsumptionRequests"] as? [[String: Any]])
            try #require(requests.count == 1)
            #expect(requests[0]["environment"] as? String == "Sandbox")
            #expect(requests[0]["transactionId"] as? String == asked.transactionId)
            #expect(requests[0]["reason"] as? String == "UNINTENDED_PURCHASE")
            #expect(JSONValue.int64(requests[0]["deadline"]) == Self.milliseconds(requestDate) + 12 * 3_600_000)

            let dayRows = try #require(try dayReport.json()["rows"] as? [[String: Any]])
            try Self.expectRows(dayRows, group: "day", equal: tips, groupOf: \.purchaseDay, refunded: refunded)
            let csvLines = dayCSV.outLines
            #expect(
                csvLines.first
                    == "environment,day,currency,transactions,units,gross_milli,refunded_milli,revoked_milli,net_milli")
            let numbers = ["transactions", "units", "gross_milli", "refunded_milli", "revoked_milli", "net_milli"]
            let fromJSON = dayRows.map { row in
                let texts = ["environment", "day", "currency"].map { row[$0] as? String ?? "" }
                return (texts + numbers.map { String(JSONValue.int64(row[$0]) ?? -1) }).joined(separator: ",")
            }
            #expect(Array(csvLines.dropFirst()) == fromJSON)

            // --by currency adds no group field: exactly the documented members.
            let currencyRows = try #require(try currencyReport.json()["rows"] as? [[String: Any]])
            try Self.expectRows(currencyRows, group: "currency", equal: tips, groupOf: \.currency, refunded: refunded)
            for row in currencyRows {
                #expect(
                    Set(row.keys) == [
                        "environment", "currency", "transactions", "units", "gross_milli", "refunded_milli",
                        "revoked_milli", "net_milli",
                    ])
            }
        }
    }

    @Test func pendingTransactionsWaitUntilFinished() async throws {
        let keys = try await SharedInputs.shared.keys()
        try await TemporaryDirectory.with { directory in
            let tipledger = Runner(directory: directory)
            let ledger = ["--db", "l.sqlite"] + SharedInputs.acceptingTestkit(keys: keys)
            let signing = try await tipledger([
                "testkit", "transaction", "--keys", keys, "--bundle-id", Self.bundleId, "--count", "3", "--seed", "5",
            ])
            try #require(signing.exited(0), "\(signing.summary)")
            let tips = try signing.outLines.map(SignedTip.init)
            let ids = tips.map(\.transactionId)
            let oldestFirst = tips.sorted { $0.purchaseDate < $1.purchaseDate }.map(\.transactionId)

            let recording = try await tipledger(
                ["verify", "--no-finish", "--format", "json"] + ledger, input: .text(signing.out))
            #expect(recording.exited(0), "\(recording.summary)")
            let recorded = try recording.jsonLines()
            #expect(recorded.map { $0["state"] as? String } == ["pending", "pending", "pending"])
            #expect(recorded.map { $0["finished"] as? Bool } == [false, false, false])

            let pending = try await tipledger(["pending", "--format", "json"] + ledger)
            #expect(pending.exited(0), "\(pending.summary)")
            let listed = try #require(try pending.json()["transactions"] as? [[String: Any]])
            #expect(listed.map { $0["transactionId"] as? String } == oldestFirst)
            #expect(listed.allSatisfy { $0["state"] as? String == "pending" && $0["finished"] as? Bool == false })

            // Only the environments named are listed, or searched, however many there are.
            let pendingElsewhere = try await tipledger(
                ["pending", "--db", "l.sqlite", "--environment", "Production,Xcode"])
            #expect(pendingElsewhere.outLines == ["no pending transactions"], "\(pendingElsewhere.summary)")
            let elsewhere = try await tipledger(
                ["finish", "--db", "l.sqlite", "--environment", "Production,Xcode", ids[0]])
            #expect(elsewhere.exited(1) && elsewhere.outLines == ["\(ids[0]): not found"], "\(elsewhere.summary)")

            let finishing = try await tipledger(["finish", ids[0], ids[1]] + ledger)
            #expect(finishing.exited(0), "\(finishing.summary)")
            #expect(finishing.outLines == ["\(ids[0]) (Sandbox): finished", "\(ids[1]) (Sandbox): finished"])
            let stillPending = try await tipledger(["pending", "--format", "json"] + ledger)
            let left = try #require(try stillPending.json()["transactions"] as? [[String: Any]])
            #expect(left.map { $0["transactionId"] as? String } == [ids[2]])

            let finishingAgain = try await tipledger(["finish", "--format", "json", ids[0], ids[2]] + ledger)
            #expect(finishingAgain.exited(0), "\(finishingAgain.summary)")
            let outcomes = try finishingAgain.jsonLines()
            #expect(outcomes.map { $0["transactionId"] as? String } == [ids[0], ids[2]])
            #expect(outcomes.map { $0["outcome"] as? String } == ["already_finished", "finished"])
            #expect(outcomes.map { $0["environment"] as? String } == ["Sandbox", "Sandbox"])

            let none = try await tipledger(["pending"] + ledger)
            #expect(none.outLines == ["no pending transactions"])
            let resubmitted = try await tipledger(["verify", "--format", "json"] + ledger, input: .text(signing.out))
            #expect(resubmitted.exited(0), "\(resubmitted.summary)")
            let duplicates = try resubmitted.jsonLines()
            #expect(duplicates.map { $0["outcome"] as? String } == ["duplicate", "duplicate", "duplicate"])
            #expect(duplicates.map { $0["state"] as? String } == ["finished", "finished", "finished"])
        }
    }

    /// `transactions` (restore JSON) lists exactly `tips`, oldest first, field by field;
    /// `refunded` names the one tip expected refunded, with its revocation date and reason.
    static func expectTransactions(
        _ transactions: Any?, equal tips: [SignedTip], refunded: (id: String, date: Int64, reason: Int64)?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let listed = try #require(transactions as? [[String: Any]], sourceLocation: sourceLocation)
        let expected = tips.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
        try #require(
            listed.map { $0["transactionId"] as? String } == expected.map(\.transactionId),
            sourceLocation: sourceLocation)
        for (row, tip) in zip(listed, expected) {
            let isRefunded = tip.transactionId == refunded?.id
            #expect(row["environment"] as? String == "Sandbox", sourceLocation: sourceLocation)
            #expect(
                row["originalTransactionId"] as? String == tip.originalTransactionId, sourceLocation: sourceLocation)
            #expect(row["productId"] as? String == tip.productId, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["purchaseDate"]) == tip.purchaseDate, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["quantity"]) == tip.quantity, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["price"]) == tip.price, sourceLocation: sourceLocation)
            #expect(row["currency"] as? String == tip.currency, sourceLocation: sourceLocation)
            #expect(row["storefront"] as? String == tip.storefront, sourceLocation: sourceLocation)
            #expect(row["finished"] as? Bool == true, sourceLocation: sourceLocation)
            #expect(
                row["state"] as? String == (isRefunded ? "refunded" : "finished"), sourceLocation: sourceLocation)
            if let refunded, isRefunded {
                #expect(JSONValue.int64(row["revocationDate"]) == refunded.date, sourceLocation: sourceLocation)
                #expect(JSONValue.int64(row["revocationReason"]) == refunded.reason, sourceLocation: sourceLocation)
            } else {
                #expect(JSONValue.isNull(row["revocationDate"]), sourceLocation: sourceLocation)
                #expect(JSONValue.isNull(row["revocationReason"]), sourceLocation: sourceLocation)
            }
        }
    }

    /// Report `rows` grouped by `group` equal the totals computed from `tips`, in order, with
    /// `refunded`'s price refunded.
    static func expectRows(
        _ rows: Any?, group: String, equal tips: [SignedTip], groupOf: (SignedTip) -> String, refunded: SignedTip,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        struct Totals {
            var transactions: Int64 = 0
            var units: Int64 = 0
            var gross: Int64 = 0
            var refunded: Int64 = 0
        }
        var expected: [[String]: Totals] = [:]
        for tip in tips {
            let key = [groupOf(tip), tip.currency]
            expected[key, default: Totals()].transactions += 1
            expected[key, default: Totals()].units += tip.quantity
            expected[key, default: Totals()].gross += tip.price
            if tip.transactionId == refunded.transactionId { expected[key, default: Totals()].refunded += tip.price }
        }
        let listed = try #require(rows as? [[String: Any]], sourceLocation: sourceLocation)
        let keys = listed.map { [$0[group] as? String ?? "", $0["currency"] as? String ?? ""] }
        #expect(keys == expected.keys.sorted { $0.lexicographicallyPrecedes($1) }, sourceLocation: sourceLocation)
        for (row, key) in zip(listed, keys) {
            let totals = try #require(expected[key], sourceLocation: sourceLocation)
            #expect(row["environment"] as? String == "Sandbox", sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["transactions"]) == totals.transactions, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["units"]) == totals.units, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["gross_milli"]) == totals.gross, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["refunded_milli"]) == totals.refunded, sourceLocation: sourceLocation)
            #expect(JSONValue.int64(row["revoked_milli"]) == 0, sourceLocation: sourceLocation)
            #expect(
                JSONValue.int64(row["net_milli"]) == totals.gross - totals.refunded, sourceLocation: sourceLocation)
        }
    }
}
