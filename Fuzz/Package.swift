// swift-tools-version: 6.2
// tipledger's fuzz targets: libFuzzer entry points, one per parser, built only by Fuzz/run.
// SPDX-License-Identifier: GPL-3.0-or-later

import PackageDescription

/// The main package's settings: Swift 6 mode, warnings as errors.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error),
]

/// One libFuzzer target: `LLVMFuzzerTestOneInput` in a single file, no `main` (libFuzzer's).
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies, swiftSettings: strict)
}

let package = Package(
    name: "tipledger-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "tipledger", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "TipLedgerCore", package: "tipledger"),
                .product(name: "TipLedgerCrypto", package: "tipledger"),
            ],
            swiftSettings: strict),
        fuzzTarget(
            "FuzzVerify",
            [
                .product(name: "TipLedgerCore", package: "tipledger"),
                .product(name: "TipLedgerCrypto", package: "tipledger"),
            ]),
        fuzzTarget("FuzzJSON", [.product(name: "TipLedgerCore", package: "tipledger")]),
        fuzzTarget("FuzzBase64", [.product(name: "TipLedgerCore", package: "tipledger")]),
        fuzzTarget("FuzzWebhook", [.product(name: "TipLedgerCore", package: "tipledger")]),
        fuzzTarget("FuzzCatalog", [.product(name: "TipLedgerCore", package: "tipledger")]),
        fuzzTarget(
            "FuzzService",
            [
                .product(name: "TipLedgerCore", package: "tipledger"),
                .product(name: "TipLedgerStore", package: "tipledger"),
                .product(name: "TipLedgerHTTP", package: "tipledger"),
            ]),
    ]
)
