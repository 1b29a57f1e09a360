#include "daemon/fabric/local_ports.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

LocalPort Port(const char* ca, int num, Guid guid, int state) {
  LocalPort port;
  port.ca_name = ca;
  port.port_num = num;
  port.port_guid = guid;
  port.port_state = state;
  return port;
}

TEST(ChooseLocalPortTest, ConfiguredGuidWinsWhateverItsState) {
  std::vector<LocalPort> ports = {Port("mlx5_0", 1, 0x11, kPortStateActive),
                                  Port("mlx5_1", 1, 0x22, kPortStateDown)};
  auto chosen = ChooseLocalPort(ports, Guid{0x22});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->ca_name, "mlx5_1");
}

TEST(ChooseLocalPortTest, UnknownConfiguredGuidNamesTheChoices) {
  std::vector<LocalPort> ports = {Port("mlx5_0", 1, 0x11, kPortStateActive)};
  auto chosen = ChooseLocalPort(ports, Guid{0x33});
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(chosen.error().message.find("0x0000000000000011"), std::string::npos);
}

TEST(ChooseLocalPortTest, SingleActivePortIsTheDefault) {
  std::vector<LocalPort> ports = {Port("mlx5_0", 1, 0x11, kPortStateInit),
                                  Port("mlx5_0", 2, 0x12, kPortStateActive)};
  auto chosen = ChooseLocalPort(ports, std::nullopt);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->port_guid, 0x12u);
}

TEST(ChooseLocalPortTest, WithoutAnSmTheSingleLinkUpPortIsTheDefault) {
  std::vector<LocalPort> ports = {Port("ibsim0", 1, 0x11, kPortStateInit),
                                  Port("ibsim0", 2, 0x12, kPortStateDown)};
  auto chosen = ChooseLocalPort(ports, std::nullopt);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->port_guid, 0x11u);
}

TEST(ChooseLocalPortTest, SeveralActivePortsAreAnError) {
  std::vector<LocalPort> ports = {Port("mlx5_0", 1, 0x11, kPortStateActive),
                                  Port("mlx5_1", 1, 0x22, kPortStateActive)};
  auto chosen = ChooseLocalPort(ports, std::nullopt);
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(chosen.error().message.find("sm.port_guid"), std::string::npos);
}

TEST(ChooseLocalPortTest, NoPortIsAnError) {
  EXPECT_FALSE(ChooseLocalPort({}, std::nullopt).ok());
}

}  // namespace
}  // namespace smsupd
