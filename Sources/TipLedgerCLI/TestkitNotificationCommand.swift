// SPDX-License-Identifier: GPL-3.0-or-later
internal import FoundationEssentials
internal import TipLedgerCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// `tipledger testkit notification`: prints a signed notification webhook body.
struct TestkitNotificationCommand: Command {
    static let name = "testkit notification"
    static let summary = "sign a test notification"
    static var usage: String { TestkitCommand.usage }

    let type: String
    let subtype: String?
    let transactionToken: String?
    let options: TestkitTransactionOptions
    let revocationReason: Int32
    let revocationPercentage: Int32?
    let consumptionReason: String
    let uuid: String?

    init(parsing scanner: inout ArgumentScanner, globals: GlobalOptions) throws {
        guard let type = try scanner.value("--type")?.uppercased(), !type.isEmpty else {
            throw CLIError.usage("testkit notification needs --type, e.g. REFUND", command: TestkitCommand.name)
        }
        self.type = type
        subtype = try scanner.value("--subtype")?.uppercased()
        transactionToken = try scanner.value("--transaction")
        options = try TestkitTransactionOptions(parsing: &scanner, command: TestkitCommand.name)
        revocationReason = Int32(try scanner.integer("--revocation-reason", in: 0...1) ?? 0)
        if let percent = try scanner.value("--revocation-percentage") {
            guard let milli = StoreKitCatalog.decimalMilliunits(percent), milli > 0, milli <= 100_000 else {
                throw CLIError.usage(
                    "--revocation-percentage takes a percentage above 0 and up to 100, with at most three decimals "
                        + "(Apple's milliunits), not '\(percent)'", command: TestkitCommand.name)
            }
            revocationPercentage = Int32(milli)  // percent × 1000 = Apple's milliunits of a whole
        } else {
            revocationPercentage = nil
        }
        consumptionReason = try scanner.value("--consumption-reason")?.uppercased() ?? "UNINTENDED_PURCHASE"
        uuid = try scanner.value("--uuid")
        if let uuid, UUID(uuidString: uuid) == nil {
            throw CLIError.usage("--uuid takes a UUID", command: TestkitCommand.name)
        }
    }

    func run(_ context: CommandContext) throws -> ExitStatus {
        guard let keys = context.globals.keysDirectory else {
            throw CLIError.usage(
                "testkit notification needs --keys DIR (made by 'testkit init')", command: TestkitCommand.name)
        }
        let signer = try TestkitKeys.signer(from: keys)
        let bundleId = TestkitCommand.bundleId(context.globals)
        let environment = try TestkitCommand.environment(context.globals)
        let signedDate = options.signedDate ?? context.clock.now().wholeMilliseconds
        var random = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
        var notification = TestNotification(
            notificationType: type, subtype: subtype, notificationUUID: uuid?.lowercased() ?? random.uuid(),
            signedDate: signedDate, environment: environment.rawValue, bundleId: bundleId,
            appAppleId: context.globals.appAppleId)
        if type != NotificationType.test.rawValue {
            var transaction = try transactionFields(
                context, bundleId: bundleId, environment: environment, random: &random)
            if transactionToken != nil { try checkAgreement(of: transaction, with: context.globals) }
            transaction.adjust(
                for: type, signedDate: signedDate, revocationReason: revocationReason,
                revocationPercentage: revocationPercentage)
            // A notification is about its transaction's app and environment.
            notification.environment = transaction.environment
            notification.bundleId = transaction.bundleId
            notification.signedTransactionInfo = try signer.sign(payload: transaction.payloadJSON)
            if type == NotificationType.consumptionRequest.rawValue {
                notification.consumptionRequestReason = consumptionReason
            }
        }
        // Apple's Production notifications name the app by its Apple ID, and verify requires it.
        if notification.environment == AppStoreEnvironment.production.rawValue && context.globals.appAppleId == nil {
            throw CLIError.usage(
                "a Production notification carries the app's Apple ID: give --app-apple-id",
                command: TestkitCommand.name)
        }
        context.terminal.line(WebhookBody.wrapping(try signer.sign(payload: notification.payloadJSON)))
        return .success
    }

    /// Refuses an `--environment` or `--bundle-id` that a transaction given with
    /// `--transaction` was not signed for: the notification takes the transaction's, and a
    /// verifier set up as the flags say would reject it.
    private func checkAgreement(of transaction: TestTransaction, with globals: GlobalOptions) throws {
        // As the verifier takes them: Xcode and LocalTesting under either name.
        let signedFor = AppStoreEnvironment(rawValue: transaction.environment)
        if globals.environmentFlagWasGiven,
            !globals.environments.contains(where: {
                $0 == signedFor || ($0.isLocalTesting && signedFor?.isLocalTesting == true)
            })
        {
            throw CLIError(
                .usage, "the transaction is signed for \(transaction.environment), not for --environment's",
                hint:
                    "leave out --environment (the notification takes the transaction's), or sign the transaction for it"
            )
        }
        if !globals.bundleIds.isEmpty, !globals.bundleIds.contains(transaction.bundleId) {
            throw CLIError(
                .usage,
                "the transaction is for the bundle id \(transaction.bundleId), which \(globals.bundleIdSource) does not list",
                hint: "leave out \(globals.bundleIdSource) (the notification takes the transaction's), or sign the"
                    + " transaction for it")
        }
    }

    private func transactionFields(
        _ context: CommandContext, bundleId: String, environment: AppStoreEnvironment, random: inout SeededGenerator
    ) throws -> TestTransaction {
        guard var token = transactionToken else {
            return try options.transaction(
                bundleId: bundleId, environment: environment,
                catalog: try context.globals.loadCatalog(warningsTo: context.terminal),
                now: context.clock.now().wholeMilliseconds, random: &random)
        }
        if token == "-" {
            // One signed transaction: a second one would be left out without a word. From a
            // terminal, the first line is all: looking for a second would wait for Ctrl-D.
            var reader = LineReader(fileDescriptor: context.inputDescriptor, maximumLineBytes: 1 << 16)
            let wanted = isatty(context.inputDescriptor) == 1 ? 1 : 2
            var lines: [String] = []
            while lines.count < wanted, let line = reader.next() {
                if !line.isBlank { lines.append(line.text ?? "-") }
            }
            try reader.checkStandardInputRead()
            guard lines.count < 2 else {
                throw CLIError(
                    .usage, "--transaction - takes one signed transaction, and standard input has more than one",
                    hint: "sign one notification per transaction")
            }
            guard let first = lines.first else {
                throw CLIError(.usage, "--transaction - found no signed transaction on standard input")
            }
            token = first
        }
        do {
            return try TestTransaction(resigning: token)
        } catch {
            throw CLIError(.usage, "--transaction is not a signed transaction: \(error.message)")
        }
    }
}
