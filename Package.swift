// swift-tools-version: 6.2
// tipledger — a self-hosted ledger and receipt verifier for App Store in-app purchases.
// SPDX-License-Identifier: GPL-3.0-or-later

import PackageDescription

/// Settings for every Swift target the project owns: Swift 6 mode, warnings as errors, and
/// internal imports by default so no C type leaks into a public API.
let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "tipledger",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tipledger", targets: ["tipledger"]),
        // The modules as libraries, for the fuzzing package in Fuzz/ (a package of its own, so
        // its instrumented build never touches this one's).
        .library(name: "TipLedgerCrypto", targets: ["TipLedgerCrypto"]),
        .library(name: "TipLedgerCore", targets: ["TipLedgerCore"]),
        .library(name: "TipLedgerStore", targets: ["TipLedgerStore"]),
        .library(name: "TipLedgerHTTP", targets: ["TipLedgerHTTP"]),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // zlib decodes the screenshots of the report page the browser tests take.
        .systemLibrary(name: "CZlib", path: "Tests/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "TipLedgerCrypto", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "TipLedgerCore", dependencies: ["TipLedgerCrypto"], swiftSettings: strict),
        .target(
            name: "TipLedgerStore", dependencies: ["TipLedgerCore", "CSQLite"], swiftSettings: strict),
        .target(
            name: "TipLedgerPresentation", dependencies: ["TipLedgerCore", "TipLedgerStore"], swiftSettings: strict),
        .target(
            name: "TipLedgerHTTP",
            dependencies: [
                "TipLedgerStore", "TipLedgerPresentation", "TipLedgerCore", "TipLedgerCrypto", "CMicroHTTPD",
            ],
            swiftSettings: strict),
        .target(
            name: "TipLedgerCLI",
            dependencies: [
                "TipLedgerCore", "TipLedgerCrypto", "TipLedgerStore", "TipLedgerPresentation", "TipLedgerHTTP",
                "TipLedgerAppStoreAPI", "TipLedgerRevocation",
            ],
            swiftSettings: strict),
        .target(
            name: "TipLedgerAppStoreAPI", dependencies: ["TipLedgerCore", "TipLedgerCrypto", "CCurl"],
            swiftSettings: strict),
        .target(
            name: "TipLedgerRevocation", dependencies: ["TipLedgerCore", "TipLedgerCrypto", "TipLedgerAppStoreAPI"],
            swiftSettings: strict),
        .executableTarget(name: "tipledger", dependencies: ["TipLedgerCLI"], swiftSettings: strict),

        .target(
            name: "TipLedgerTestSupport", dependencies: ["TipLedgerCore", "TipLedgerCrypto"],
            path: "Tests/TipLedgerTestSupport", swiftSettings: strict),
        .target(
            name: "TipLedgerAPITestSupport",
            dependencies: ["TipLedgerTestSupport", "TipLedgerHTTP", "TipLedgerCore", "TipLedgerCrypto"],
            path: "Tests/TipLedgerAPITestSupport", swiftSettings: strict),
        .executableTarget(
            name: "fake-app-store",
            dependencies: ["TipLedgerAPITestSupport", "TipLedgerTestSupport", "TipLedgerCore"],
            path: "Tests/FakeAppStoreTool", swiftSettings: strict),
        .testTarget(
            name: "TipLedgerCryptoTests", dependencies: ["TipLedgerTestSupport", "TipLedgerCrypto"],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerCoreTests", dependencies: ["TipLedgerTestSupport", "TipLedgerCore", "TipLedgerCrypto"],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerStoreTests",
            dependencies: ["TipLedgerTestSupport", "TipLedgerStore", "TipLedgerCore", "TipLedgerCrypto"],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerPresentationTests",
            dependencies: ["TipLedgerTestSupport", "TipLedgerPresentation", "TipLedgerStore", "TipLedgerCore"],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerHTTPTests",
            dependencies: [
                "TipLedgerTestSupport", "TipLedgerAPITestSupport", "TipLedgerHTTP", "TipLedgerStore", "TipLedgerCore",
                "TipLedgerCrypto",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerCLITests",
            dependencies: [
                "TipLedgerTestSupport", "TipLedgerAPITestSupport", "TipLedgerCLI", "TipLedgerCore", "TipLedgerCrypto",
                "TipLedgerStore", "TipLedgerPresentation", "TipLedgerHTTP", "CZlib",
            ],
            exclude: ["Golden"], swiftSettings: strict),
        .testTarget(
            name: "TipLedgerAppStoreAPITests",
            dependencies: [
                "TipLedgerAPITestSupport", "TipLedgerTestSupport", "TipLedgerAppStoreAPI", "TipLedgerCore",
                "TipLedgerCrypto", "TipLedgerHTTP",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TipLedgerRevocationTests",
            dependencies: [
                "TipLedgerRevocation", "TipLedgerTestSupport", "TipLedgerAPITestSupport", "TipLedgerCore",
                "TipLedgerCrypto", "TipLedgerHTTP",
            ],
            swiftSettings: strict),
    ]
)
