// RankTable finds exactly the bytes it holds, through each of its paths: the array of 1- and
// 2-byte keys, the table of 3- and 4-byte keys, and the main table with the tails of its keys
// of 9 bytes or more. Keys that differ only in trailing zero bytes or in size must never be
// confused, since keys are zero-padded inside. The filter in front of find_filtered never loses
// a key, and the padded lookups, which read 8 bytes whatever the key's size, answer as the
// plain ones do.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "tokenizer/rank_table.hpp"

namespace tokenizer {
namespace {

// Every lookup of `key`, plain and padded, filtered or not, must give `expected`. The padded
// ones read the key from a buffer where bytes that are not zero follow it, as text would.
void expect_every_lookup(const RankTable& table, const std::string& key, Rank expected) {
  const std::string padded = key + "\xA5\x5A\xFF\x01\x80\x7F\x33\xCC";
  const auto* plain_data = reinterpret_cast<const std::uint8_t*>(key.data());
  const auto* padded_data = reinterpret_cast<const std::uint8_t*>(padded.data());
  ASSERT_EQ(table.find(plain_data, key.size()), expected) << "size " << key.size();
  ASSERT_EQ(table.find_filtered(plain_data, key.size()), expected) << "size " << key.size();
  ASSERT_EQ(table.find_padded(padded_data, key.size()), expected) << "size " << key.size();
  ASSERT_EQ(table.find_filtered_padded(padded_data, key.size()), expected) << "size " << key.size();
}

TEST(RankTable, FindsExactlyTheInsertedKeysOfEverySize) {
  RankTable table;
  std::vector<std::string> keys;
  for (const std::string& key : {std::string("a"), std::string("ab"), std::string("abc"), std::string("abcd"),
                                 std::string("abcde"), std::string("abcdefghij"), std::string("ab\0", 3),
                                 std::string("ab\0\0", 4), std::string("\0\0\0", 3), std::string("\0\0\0\0", 4),
                                 std::string("a\0", 2), std::string(9, '\0')})
    keys.push_back(key);
  std::mt19937 rng(5);
  while (keys.size() < 5000) {
    std::string key(1 + rng() % 9, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 4);  // few byte values: many near-collisions
    keys.push_back(key);
  }
  std::vector<std::string> inserted;
  for (const std::string& key : keys)
    if (table.insert(key, static_cast<Rank>(inserted.size()))) inserted.push_back(key);
  for (Rank r = 0; r < inserted.size(); ++r) {
    ASSERT_NO_FATAL_FAILURE(expect_every_lookup(table, inserted[r], r));
    ASSERT_EQ(table.bytes(r), inserted[r]);
  }
  // Keys absent from the table, of every size, are not found.
  for (int i = 0; i < 20000; ++i) {
    std::string key(1 + rng() % 9, '\0');
    for (char& c : key) c = static_cast<char>(4 + rng() % 4);
    ASSERT_NO_FATAL_FAILURE(expect_every_lookup(table, key, kNoRank));
  }
  EXPECT_EQ(table.find(std::string("abc\0", 4)), kNoRank);
  EXPECT_EQ(table.find(std::string("a\0\0", 3)), kNoRank);  // "a\0" and "a" are present
}

// Keys of 9 bytes or more are told apart by their last 8 bytes, kept beside their slot, and past
// 16 bytes also by the bytes in between: keys that share their first 8 bytes and size, and
// differ in one byte anywhere after those, are all distinct.
TEST(RankTable, TellsApartLongKeysThatDifferAfterTheirHead) {
  RankTable table;
  std::vector<std::string> present, absent;
  for (std::size_t size = 9; size <= 40; ++size) {
    const std::string base = "prefix__" + std::string(size - 8, 'm');
    for (std::size_t at = 8; at < size; ++at) {
      std::string changed = base;
      changed[at] = 'x';
      (at % 2 ? present : absent).push_back(changed);
    }
    present.push_back(base);
  }
  for (Rank r = 0; r < present.size(); ++r) ASSERT_TRUE(table.insert(present[r], r)) << present[r];
  for (Rank r = 0; r < present.size(); ++r) ASSERT_NO_FATAL_FAILURE(expect_every_lookup(table, present[r], r));
  for (const std::string& key : absent) ASSERT_NO_FATAL_FAILURE(expect_every_lookup(table, key, kNoRank));
}

// The filter behind find_filtered may let an absent key through, never stop a present one; and
// it is worth its word only if it stops most absent ones (about 2-3% pass at its density).
TEST(RankTable, FilterPassesEveryKeyAndFewAbsentOnes) {
  RankTable table;
  std::mt19937 rng(7);
  const auto random_key = [&rng](char first) {
    std::string key(1 + rng() % 16, '\0');
    for (char& c : key) c = static_cast<char>(rng() % 256);
    key[0] = first;  // keeps the present and absent sets apart
    return key;
  };
  std::vector<std::string> inserted;
  while (inserted.size() < 50000) {
    const std::string key = random_key('p');
    if (table.insert(key, static_cast<Rank>(inserted.size()))) inserted.push_back(key);
  }
  for (Rank r = 0; r < inserted.size(); ++r) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(inserted[r].data());
    ASSERT_TRUE(table.might_contain(data, inserted[r].size())) << "size " << inserted[r].size();
    ASSERT_EQ(table.find_filtered(data, inserted[r].size()), r);
  }
  std::size_t absent = 0, passed = 0;
  for (int i = 0; i < 100000; ++i) {
    const std::string key = random_key('a');
    const auto* data = reinterpret_cast<const std::uint8_t*>(key.data());
    ASSERT_EQ(table.find_filtered(data, key.size()), kNoRank);
    if (key.size() < 3) continue;  // short keys are not filtered: they go straight to their arrays
    ++absent;
    passed += table.might_contain(data, key.size());
  }
  EXPECT_LT(passed * 20, absent) << passed << " of " << absent << " absent keys passed";  // under 5%
}

TEST(RankTable, WithOnlyShortKeysTheFilterRulesOutLongerOnes) {
  RankTable table;
  table.insert("ab", 0);
  EXPECT_FALSE(table.might_contain(reinterpret_cast<const std::uint8_t*>("abc"), 3));
  EXPECT_TRUE(table.might_contain(reinterpret_cast<const std::uint8_t*>("ab"), 2));
  EXPECT_EQ(table.find_filtered(reinterpret_cast<const std::uint8_t*>("ab"), 2), 0u);
}

TEST(RankTable, RefusesAnEmptyToken) {
  RankTable table;
  EXPECT_THROW(table.insert("", 0), std::invalid_argument);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(table.find(std::string("\0\0", 2)), kNoRank);  // the slot an empty key would hit
}

TEST(RankTable, RefusesRanksAboveTheMaximum) {
  RankTable table;
  EXPECT_TRUE(table.insert("xyz", kMaxRank));
  EXPECT_EQ(table.find("xyz"), kMaxRank);
  EXPECT_THROW(table.insert("xyzw", kMaxRank + 1), std::invalid_argument);
}

}  // namespace
}  // namespace tokenizer
