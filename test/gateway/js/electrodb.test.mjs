// ElectroDB, used unchanged, on the users/orders/groups model of
// examples/users_orders_groups.sql: the same key design, written as
// ElectroDB entities in one service, and the access patterns the example
// answers, run against the endpoint.
//
//   item         PK            SK            index "inverted" (HASH SK, RANGE PK)
//   user         USER#<id>     METADATA
//   order        USER#<id>     ORDER#<id>
//   group        GROUP#<id>    METADATA
//   membership   GROUP#<id>    USER#<id>     USER#<id> / GROUP#<id>
//
// The example stores each membership twice (once in each partition) and
// writes both rows in one transaction; the usual ElectroDB shape of the same
// many-to-many relation stores it once and reads the other direction through
// an inverted index, so "a user's groups" here is a Query on the index.
// Templates keep the keys exactly as the example writes them
// ("USER#alice"), with casing "none" (ElectroDB lower-cases keys by default).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { CreateTableCommand, GetItemCommand, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import { Entity, Service } from "electrodb";
import { newClient, tableName, dropTable } from "./lib/endpoint.mjs";

const client = newClient();
const T = tableName("uog");

const key = (field, template, composite) => ({ field, template, composite, casing: "none" });

const User = new Entity({
    model: { entity: "user", version: "1", service: "shop" },
    attributes: {
        userId: { type: "string", required: true, readOnly: true },
        fullName: { type: "string", required: true, field: "FullName" },
        email: { type: "string", field: "Email" },
        joinedOn: { type: "string", field: "JoinedOn" },
    },
    indexes: {
        byId: {
            collection: "account",
            pk: key("PK", "USER#${userId}", ["userId"]),
            sk: key("SK", "METADATA", []),
        },
    },
}, { table: T, client });

const Order = new Entity({
    model: { entity: "order", version: "1", service: "shop" },
    attributes: {
        userId: { type: "string", required: true, readOnly: true },
        orderId: { type: "string", required: true, readOnly: true },
        placedOn: { type: "string", required: true, field: "PlacedOn" },
        amount: { type: "number", required: true, field: "Amount" },
        orderStatus: { type: ["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"], required: true, field: "OrderStatus" },
    },
    indexes: {
        byUser: {
            collection: "account",
            pk: key("PK", "USER#${userId}", ["userId"]),
            sk: key("SK", "ORDER#${orderId}", ["orderId"]),
        },
    },
}, { table: T, client });

const Group = new Entity({
    model: { entity: "group", version: "1", service: "shop" },
    attributes: {
        groupId: { type: "string", required: true, readOnly: true },
        groupName: { type: "string", required: true, field: "GroupName" },
        memberCount: { type: "number", required: true, default: 0, field: "MemberCount" },
    },
    indexes: {
        byId: {
            collection: "roster",
            pk: key("PK", "GROUP#${groupId}", ["groupId"]),
            sk: key("SK", "METADATA", []),
        },
    },
}, { table: T, client });

const Membership = new Entity({
    model: { entity: "membership", version: "1", service: "shop" },
    attributes: {
        groupId: { type: "string", required: true, readOnly: true },
        userId: { type: "string", required: true, readOnly: true },
        groupName: { type: "string", required: true, field: "GroupName" },
        fullName: { type: "string", required: true, field: "FullName" },
        memberRole: { type: ["member", "owner"], required: true, field: "MemberRole" },
        joinedOn: { type: "string", required: true, field: "JoinedOn" },
    },
    indexes: {
        members: {
            collection: "roster",
            pk: key("PK", "GROUP#${groupId}", ["groupId"]),
            sk: key("SK", "USER#${userId}", ["userId"]),
        },
        groups: {
            index: "inverted",
            pk: key("SK", "USER#${userId}", ["userId"]),
            sk: key("PK", "GROUP#${groupId}", ["groupId"]),
        },
    },
}, { table: T, client });

const shop = new Service({ user: User, order: Order, group: Group, membership: Membership }, { table: T, client });

const users = [
    { userId: "alice", fullName: "Alice Martin", email: "alice@example.com", joinedOn: "2023-04-02" },
    { userId: "bruno", fullName: "Bruno Silva", email: "bruno@example.com", joinedOn: "2023-06-19" },
    { userId: "chen", fullName: "Chen Wei", email: "chen@example.com", joinedOn: "2023-09-30" },
    { userId: "dana", fullName: "Dana Kim", email: "dana@example.com", joinedOn: "2024-01-08" },
];
const orders = [
    { userId: "alice", orderId: "1001", placedOn: "2024-01-15", amount: 42.5, orderStatus: "DELIVERED" },
    { userId: "bruno", orderId: "1002", placedOn: "2024-01-18", amount: 12, orderStatus: "DELIVERED" },
    { userId: "dana", orderId: "1003", placedOn: "2024-02-02", amount: 7.25, orderStatus: "DELIVERED" },
    { userId: "alice", orderId: "1004", placedOn: "2024-02-20", amount: 18, orderStatus: "DELIVERED" },
    { userId: "bruno", orderId: "1005", placedOn: "2024-02-28", amount: 250, orderStatus: "CANCELLED" },
    { userId: "dana", orderId: "1006", placedOn: "2024-03-01", amount: 64.1, orderStatus: "SHIPPED" },
    { userId: "alice", orderId: "1007", placedOn: "2024-03-05", amount: 99.9, orderStatus: "SHIPPED" },
];
const groups = [
    { groupId: "admins", groupName: "Administrators" },
    { groupId: "beta", groupName: "Beta testers" },
    { groupId: "support", groupName: "Support" },
];
const memberships = [
    ["alice", "admins", "owner", "2023-04-02"],
    ["alice", "beta", "member", "2024-02-01"],
    ["bruno", "beta", "owner", "2024-01-20"],
    ["chen", "beta", "member", "2024-03-11"],
    ["chen", "support", "owner", "2023-10-01"],
    ["dana", "support", "member", "2024-01-09"],
];
const fullNameOf = (u) => users.find((x) => x.userId === u).fullName;
const groupNameOf = (g) => groups.find((x) => x.groupId === g).groupName;

// Joining a group: the membership and the group's counter in one
// transaction, on condition that the user exists and is not yet a member
// (create = put if absent; patch = update of an existing item).
function joinGroup(userId, groupId, memberRole, joinedOn) {
    return shop.transaction.write(({ user, membership, group }) => [
        user.check({ userId }).where(({ fullName }, { exists }) => exists(fullName)).commit(),
        membership.create({ userId, groupId, memberRole, joinedOn, groupName: groupNameOf(groupId), fullName: fullNameOf(userId) }).commit(),
        group.patch({ groupId }).add({ memberCount: 1 }).commit(),
    ]).go();
}

async function allPages(query, options = {}) {
    const out = [];
    let cursor = null;
    let pages = 0;
    do {
        const page = await query.go({ ...options, cursor });
        out.push(...page.data);
        cursor = page.cursor;
        pages++;
    } while (cursor);
    return { data: out, pages };
}

describe("ElectroDB on the users/orders/groups model", () => {
    before(async () => {
        await client.send(new CreateTableCommand({
            TableName: T,
            BillingMode: "PAY_PER_REQUEST",
            AttributeDefinitions: [
                { AttributeName: "PK", AttributeType: "S" },
                { AttributeName: "SK", AttributeType: "S" },
            ],
            KeySchema: [
                { AttributeName: "PK", KeyType: "HASH" },
                { AttributeName: "SK", KeyType: "RANGE" },
            ],
            GlobalSecondaryIndexes: [{
                IndexName: "inverted",
                KeySchema: [
                    { AttributeName: "SK", KeyType: "HASH" },
                    { AttributeName: "PK", KeyType: "RANGE" },
                ],
                Projection: { ProjectionType: "ALL" },
            }],
        }));
        await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1, maxDelay: 2 }, { TableName: T });
    });

    after(async () => {
        await dropTable(client, T);
        client.destroy();
    });

    it("creates users (put if absent), orders and groups (batch writes)", async () => {
        for (const u of users) {
            const { data } = await User.create(u).go();
            assert.deepEqual(data, u);
        }
        await assert.rejects(User.create(users[0]).go(), (err) => /conditional request failed/i.test(err.message));

        const o = await Order.put(orders).go();
        assert.deepEqual(o.unprocessed, []);
        const g = await Group.put(groups).go();
        assert.deepEqual(g.unprocessed, []);

        // The keys on the wire are the example's, not ElectroDB's defaults.
        const raw = await client.send(new GetItemCommand({ TableName: T, Key: { PK: { S: "USER#alice" }, SK: { S: "ORDER#1007" } } }));
        assert.equal(raw.Item.Amount.N, "99.9");
        assert.equal(raw.Item.OrderStatus.S, "SHIPPED");
    });

    it("joins groups in transactions; joining twice or a missing user cancels it", async () => {
        for (const [u, g, role, on] of memberships) {
            const res = await joinGroup(u, g, role, on);
            assert.equal(res.canceled, false, `joining ${u} to ${g}`);
        }
        const twice = await joinGroup("bruno", "beta", "member", "2024-04-01");
        assert.equal(twice.canceled, true);
        assert.deepEqual(twice.data.map((r) => r.code), ["None", "ConditionalCheckFailed", "None"]);

        // a user that does not exist: the ConditionCheck cancels the join
        const nobody = await shop.transaction.write(({ user, membership, group }) => [
            user.check({ userId: "zoe" }).where(({ fullName }, { exists }) => exists(fullName)).commit(),
            membership.create({ userId: "zoe", groupId: "admins", memberRole: "member", joinedOn: "2024-04-01", groupName: "Administrators", fullName: "Zoe" }).commit(),
            group.patch({ groupId: "admins" }).add({ memberCount: 1 }).commit(),
        ]).go();
        assert.equal(nobody.canceled, true);
        assert.deepEqual(nobody.data.map((r) => r.code), ["ConditionalCheckFailed", "None", "None"]);

        const counts = await Group.get(groups.map(({ groupId }) => ({ groupId }))).go();
        assert.deepEqual(counts.unprocessed, []);
        assert.deepEqual(Object.fromEntries(counts.data.map((g) => [g.groupId, g.memberCount])),
            { admins: 1, beta: 3, support: 2 }, "cancelled joins changed no counter");
    });

    it("a user's orders, newest first, and paged two at a time", async () => {
        const { data } = await Order.query.byUser({ userId: "alice" }).go({ order: "desc" });
        assert.deepEqual(data.map((o) => o.orderId), ["1007", "1004", "1001"]);
        assert.deepEqual(data[0], orders[6]);

        const paged = await allPages(Order.query.byUser({ userId: "alice" }), { order: "desc", limit: 2 });
        assert.deepEqual(paged.data.map((o) => o.orderId), ["1007", "1004", "1001"]);
        assert.ok(paged.pages >= 2, "Limit 2 over three orders takes two pages");

        const between = await Order.query.byUser({ userId: "alice" }).between({ orderId: "1002" }, { orderId: "1005" }).go();
        assert.deepEqual(between.data.map((o) => o.orderId), ["1004"]);
    });

    it("orders not yet delivered, with a filter", async () => {
        const open = [];
        for (const { userId } of users) {
            const { data } = await Order.query.byUser({ userId })
                .where(({ orderStatus }, { ne }) => ne(orderStatus, "DELIVERED"))
                .go();
            open.push(...data.map((o) => `${o.userId}:${o.orderId}:${o.orderStatus}`));
        }
        assert.deepEqual(open, ["alice:1007:SHIPPED", "bruno:1005:CANCELLED", "dana:1006:SHIPPED"]);

        const big = await Order.query.byUser({ userId: "bruno" }).where(({ amount }, { gt }) => gt(amount, 100)).go();
        assert.deepEqual(big.data.map((o) => o.orderId), ["1005"]);
    });

    it("a user and their orders in one Query (the 'account' collection)", async () => {
        const { data } = await shop.collections.account({ userId: "dana" }).go();
        assert.deepEqual(data.user, [users[3]]);
        assert.deepEqual(data.order.map((o) => o.orderId), ["1003", "1006"]);
    });

    it("the members of a group, and the group with its members (the 'roster' collection)", async () => {
        const { data } = await Membership.query.members({ groupId: "beta" }).go();
        assert.deepEqual(data.map((m) => [m.userId, m.fullName, m.memberRole]),
            [["alice", "Alice Martin", "member"], ["bruno", "Bruno Silva", "owner"], ["chen", "Chen Wei", "member"]]);

        const roster = await shop.collections.roster({ groupId: "support" }).go();
        assert.deepEqual(roster.data.group, [{ groupId: "support", groupName: "Support", memberCount: 2 }]);
        assert.deepEqual(roster.data.membership.map((m) => m.userId), ["chen", "dana"]);
    });

    it("the groups of a user, through the inverted index", async () => {
        const chen = await Membership.query.groups({ userId: "chen" }).go();
        assert.deepEqual(chen.data.map((m) => [m.groupId, m.groupName, m.memberRole]),
            [["beta", "Beta testers", "member"], ["support", "Support", "owner"]]);

        const alice = await Membership.query.groups({ userId: "alice" }).begins({ groupId: "b" }).go();
        assert.deepEqual(alice.data.map((m) => m.groupId), ["beta"]);

        const none = await Membership.query.groups({ userId: "zoe" }).go();
        assert.deepEqual(none.data, []);
    });

    it("leaves a group: the membership and the counter in one transaction", async () => {
        const res = await shop.transaction.write(({ membership, group }) => [
            membership.delete({ groupId: "beta", userId: "alice" }).where(({ userId }, { exists }) => exists(userId)).commit(),
            group.patch({ groupId: "beta" }).subtract({ memberCount: 1 }).commit(),
        ]).go();
        assert.equal(res.canceled, false);

        const beta = await shop.collections.roster({ groupId: "beta" }).go();
        assert.equal(beta.data.group[0].memberCount, 2);
        assert.deepEqual(beta.data.membership.map((m) => m.userId), ["bruno", "chen"]);
        const alice = await Membership.query.groups({ userId: "alice" }).go();
        assert.deepEqual(alice.data.map((m) => m.groupId), ["admins"]);

        // Leaving again: the condition fails and the counter stays.
        const again = await shop.transaction.write(({ membership, group }) => [
            membership.delete({ groupId: "beta", userId: "alice" }).where(({ userId }, { exists }) => exists(userId)).commit(),
            group.patch({ groupId: "beta" }).subtract({ memberCount: 1 }).commit(),
        ]).go();
        assert.equal(again.canceled, true);
        const after = await Group.get({ groupId: "beta" }).go();
        assert.equal(after.data.memberCount, 2);
    });

    it("updates a user and reads it back; a scan sees each entity by its type", async () => {
        const { data } = await User.patch({ userId: "bruno" }).set({ email: "bruno@example.org" }).go({ response: "all_new" });
        assert.deepEqual(data, { ...users[1], email: "bruno@example.org" });
        const got = await User.get({ userId: "bruno" }).go();
        assert.equal(got.data.email, "bruno@example.org");

        await assert.rejects(User.patch({ userId: "zoe" }).set({ email: "z@example.com" }).go(),
            (err) => /conditional request failed/i.test(err.message), "patch of a missing user fails its condition");

        const scanned = await allPages(User.scan, { limit: 5 });
        assert.deepEqual(scanned.data.map((u) => u.userId).sort(), ["alice", "bruno", "chen", "dana"]);
        const scannedOrders = await Order.scan.go({ pages: "all" });
        assert.equal(scannedOrders.data.length, 7);
        const total = scannedOrders.data.filter((o) => o.orderStatus !== "CANCELLED").reduce((s, o) => s + o.amount, 0);
        assert.equal(Math.round(total * 100), 24375);
    });
});
