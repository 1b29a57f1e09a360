#include "daemon/fabric/mad_codec.h"

#include <gtest/gtest.h>

#include <cstring>

namespace smsupd {
namespace {

TEST(MadCodecTest, SmInfoRoundTripsThroughTheWireLayout) {
  SmInfo info{0x0002c90300000101ULL, 0x1122334455667788ULL, 4242, 15, SmState::kMaster};
  uint8_t data[kSmpDataSize];
  EncodeSmInfo(info, data);
  // IBA 14.2.5.13: GUID big-endian at byte 0, SM_Key at 8, ActCount at 16,
  // priority in the high nibble of byte 20 and state in the low one.
  EXPECT_EQ(data[0], 0x00);
  EXPECT_EQ(data[7], 0x01);
  EXPECT_EQ(data[8], 0x11);
  EXPECT_EQ(data[19], 4242 & 0xff);
  EXPECT_EQ(data[20], (15 << 4) | 3);
  SmInfo back = DecodeSmInfo(data);
  EXPECT_EQ(back.guid, info.guid);
  EXPECT_EQ(back.sm_key, info.sm_key);
  EXPECT_EQ(back.act_count, info.act_count);
  EXPECT_EQ(back.priority, 15);
  EXPECT_EQ(back.state, SmState::kMaster);
}

TEST(MadCodecTest, PortInfoFieldsComeFromTheirOffsets) {
  uint8_t data[kSmpDataSize] = {};
  data[16] = 0x00, data[17] = 0x07;  // LID
  data[18] = 0x00, data[19] = 0x02;  // MasterSMLID
  data[20] = 0x00, data[21] = 0x00, data[22] = 0x00, data[23] = 0x02;  // CapabilityMask: IsSM
  data[32] = 0x04;                   // PortState Active in the low nibble
  data[33] = 0x50;                   // PortPhysicalState LinkUp in the high nibble
  PortInfo info = DecodePortInfo(data);
  EXPECT_EQ(info.lid, 7);
  EXPECT_EQ(info.sm_lid, 2);
  EXPECT_TRUE(info.is_sm());
  EXPECT_EQ(info.port_state, kPortStateActive);
  EXPECT_EQ(info.phys_state, 5);
}

TEST(MadCodecTest, PKeyBlockIsBigEndian) {
  uint8_t data[kSmpDataSize] = {};
  data[0] = 0xff, data[1] = 0xff;
  data[2] = 0x00, data[3] = 0x10;
  std::vector<uint16_t> block = DecodePKeyBlock(data);
  ASSERT_EQ(block.size(), 32u);
  EXPECT_EQ(block[0], 0xffff);
  EXPECT_EQ(block[1], 0x0010);
  EXPECT_EQ(block[2], 0x0000);
}

TEST(MadCodecTest, SmInfoRecordsAreCutByAttributeOffset) {
  // Two 32-byte records (attribute offset 4) plus a partial third.
  uint8_t records[80] = {};
  SmInfo first{0x11, 0, 1, 15, SmState::kMaster};
  SmInfo second{0x22, 0, 2, 5, SmState::kStandby};
  uint8_t payload[kSmpDataSize];
  EncodeSmInfo(first, payload);
  std::memcpy(records + 4, payload, 21);
  EncodeSmInfo(second, payload);
  std::memcpy(records + 32 + 4, payload, 21);
  records[1] = 1;
  records[33] = 3;
  auto decoded = DecodeSmInfoRecords(records, sizeof records, 4);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ((*decoded)[0].lid, 1);
  EXPECT_EQ((*decoded)[0].info.guid, 0x11u);
  EXPECT_EQ((*decoded)[1].lid, 3);
  EXPECT_EQ((*decoded)[1].info.state, SmState::kStandby);
}

TEST(MadCodecTest, TooSmallRecordSizeIsAnError) {
  uint8_t records[64] = {};
  EXPECT_FALSE(DecodeSmInfoRecords(records, sizeof records, 1).ok());
  EXPECT_TRUE(DecodeSmInfoRecords(records, 0, 0).ok());
}

TEST(FabricTest, StateNamesAreTheIbNames) {
  EXPECT_STREQ(SmStateName(SmState::kNotActive), "NOTACTIVE");
  EXPECT_STREQ(SmStateName(SmState::kDiscovering), "DISCOVERING");
  EXPECT_STREQ(SmStateName(SmState::kStandby), "STANDBY");
  EXPECT_STREQ(SmStateName(SmState::kMaster), "MASTER");
}

TEST(FabricTest, SmInfoPayloadWithGuidZeroIsRefused) {
  EXPECT_FALSE(CheckSmInfoPayload(SmInfo{0, 0, 0, 15, SmState::kMaster}).ok());
  EXPECT_FALSE(CheckSmInfoPayload(SmInfo{0x11, 0, 0, 16, SmState::kMaster}).ok());
  EXPECT_TRUE(CheckSmInfoPayload(SmInfo{0x11, 0, 0, 15, SmState::kMaster}).ok());
}

}  // namespace
}  // namespace smsupd
