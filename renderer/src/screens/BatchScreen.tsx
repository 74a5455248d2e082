/**
 * Bulk payouts: with no batch open, the importer and the past batches; with one open, its rows,
 * preview, rehearsal, confirmation, progress and report.
 */
import '../batch.css';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useBatch } from '../stores';
import { BatchImport } from './BatchImport';
import { BatchList } from './BatchList';
import { BatchOpen } from './BatchOpen';
import { Screen } from '../components/Screen';
import { useOpenInAddress } from '../components/useOpenInAddress';

export function BatchScreen() {
  const { t } = useTranslation('batch');
  const openId = useBatch((s) => s.openId);
  const listStatus = useBatch((s) => s.list.status);
  const loadList = useBatch((s) => s.loadList);
  const open = useBatch((s) => s.open);
  const close = useBatch((s) => s.close);
  // `#/batches?batch=<id>`: a reload or Back lands on the open batch, not on the list.
  useOpenInAddress('batch', openId, (id) => void open(id), close);
  useEffect(() => {
    if (listStatus === 'idle') void loadList();
  }, [listStatus, loadList]);

  if (openId) return <BatchOpen />;
  return (
    <Screen id="batch" title={t('title')} intro={t('subtitle')} width="wide">
      <BatchImport />
      <BatchList />
    </Screen>
  );
}
