// SPDX-License-Identifier: GPL-3.0-or-later
//
// fake-app-store: the tests' fake App Store Server API, started with a scripted history for
// trying `tipledger sync`, `lookup`, `consumption` and `notify-test` by hand:
//
//     swift build --product fake-app-store
//     .build/debug/fake-app-store --out /tmp/fake [--port 8443] [--environment Sandbox] [--tips 120]
//
// It prints the variables to export, then serves until interrupted. Every request is checked
// as Apple checks it (the bearer token signed with Apple's test key, the method, path, query
// and body); refusals are printed as they happen.
import Foundation
import TipLedgerAPITestSupport
import TipLedgerCore
import TipLedgerTestSupport

/// The value after `name` on the command line, if any.
/// Writes `text` and a newline to standard output at once (Glibc's `stdout` is off limits to
/// strict concurrency).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let out = option("--out") else {
    FileHandle.standardError.write(
        Data("usage: fake-app-store --out DIR [--port N] [--environment Sandbox|Production] [--tips N]\n".utf8))
    exit(64)
}
let environment = AppStoreEnvironment(rawValue: option("--environment") ?? "Sandbox") ?? .sandbox
let tipCount = Int(option("--tips") ?? "") ?? 120
let port = UInt16(option("--port") ?? "") ?? 8443

try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
let chain = try LiveTestChain(directory: out)
let account = try APITestAccount.apple()
let fake = try FakeAppStoreServer(account: account, clock: .system, port: port)
let caFile = "\(out)/api-ca.pem"
try? FileManager.default.removeItem(atPath: caFile)
try FileManager.default.copyItem(atPath: fake.certificateAuthorityFile, toPath: caFile)

// The history: a tip a little over an hour apart, each told by a ONE_TIME_CHARGE; every tenth
// refunded a day later; a consumption request about the third, an hour ago; a TEST.
let store = ScriptedAppStore()
let now = LiveTestChain.now
let hour: Int64 = 3_600_000
var notifications: [ScriptedAppStore.Notification] = []
var tips: [String] = []
for number in 1...tipCount {
    let id = String(3_000_000_000_000_000 + number)
    let purchased = now - Int64(tipCount - number + 30) * hour
    let tip = try chain.transaction(id: id, environment: environment, purchaseDate: purchased)
    tips.append(tip)
    store.setTransaction(id, tip)
    notifications.append(
        .init(
            signedPayload: try chain.notification(
                "ONE_TIME_CHARGE", uuid: TestChains.uuid(number), signedDate: purchased, about: tip,
                environment: environment), sentAt: purchased, failed: number % 7 == 0))
    if number % 10 == 0 {
        let refunded = purchased + 24 * hour
        notifications.append(
            .init(
                signedPayload: try chain.notification(
                    "REFUND", uuid: TestChains.uuid(100_000 + number), signedDate: refunded, about: tip,
                    environment: environment), sentAt: refunded))
    }
}
notifications.append(
    .init(
        signedPayload: try chain.notification(
            "CONSUMPTION_REQUEST", uuid: TestChains.uuid(200_000), signedDate: now - hour, about: tips[2],
            environment: environment), sentAt: now - hour))
let test = try chain.notification("TEST", uuid: TestChains.uuid(300_000), signedDate: now, environment: environment)
notifications.append(.init(signedPayload: test, sentAt: now - 2 * hour))
store.add(notifications)
store.setTransactionHistory(
    String(3_000_000_000_000_001),
    pages: stride(from: 0, to: tips.count, by: 20).map { Array(tips[$0..<min($0 + 20, tips.count)]) })
store.setOrder("MQ5YZ4A2BC", Array(tips.prefix(2)))
store.setTestNotification(payload: test)
fake.respond(store.respond)

let exports = [
    "TIPLEDGER_API_URL=\(fake.baseURL)", "TIPLEDGER_API_CA=\(caFile)", "TIPLEDGER_API_KEY_FILE=\(account.keyFile)",
    "TIPLEDGER_API_KEY_ID=\(account.keyId)", "TIPLEDGER_API_ISSUER_ID=\(account.issuerId)",
    "TIPLEDGER_KEYS=\(chain.keysDirectory)", "TIPLEDGER_BUNDLE_ID=\(account.bundleId)",
    "TIPLEDGER_ENVIRONMENT=\(environment.rawValue)", "TIPLEDGER_APP_APPLE_ID=\(TestChains.appAppleId)",
]
say(
    """
    fake App Store Server API (\(environment.rawValue)) at \(fake.baseURL): \(notifications.count) notifications in \
    its history, \(tipCount) tips; customer 3000000000000001, order MQ5YZ4A2BC
    export \(exports.joined(separator: " "))
    then try: tipledger sync; tipledger sync --history 3000000000000001; tipledger lookup --order-id MQ5YZ4A2BC;
              tipledger consumption --customers-consented; tipledger notify-test
    """)

// Refusals as they come; the fake stops when the process is interrupted.
var reported = 0
while true {
    Thread.sleep(forTimeInterval: 0.5)
    let rejections = fake.rejections
    for rejection in rejections.dropFirst(reported) { say("refused a request: \(rejection)") }
    reported = rejections.count
}
